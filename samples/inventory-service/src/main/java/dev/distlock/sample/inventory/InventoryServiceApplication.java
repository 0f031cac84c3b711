package dev.distlock.sample.inventory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A flash sale: many buyers, little stock. {@code POST /orders} buys under
 * {@code @DistributedLock(name = "stock", key = "#sku")}, and every stock write carries the
 * lock's fencing token. Run with {@code --load-run} to fire concurrent buyers and print the result.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class InventoryServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(InventoryServiceApplication.class, args);
    }
}
