package dev.distlock.spring.fencing.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A SKU's quantity in stock, written through JPA. */
@Entity
@Table(name = "fenced_jpa_stock")
public class StockLevel {

    @Id
    private String sku;

    private int quantity;

    protected StockLevel() {}

    StockLevel(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    int quantity() {
        return quantity;
    }

    int take(int amount) {
        quantity -= amount;
        return quantity;
    }
}
