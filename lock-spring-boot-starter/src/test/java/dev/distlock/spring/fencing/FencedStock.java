package dev.distlock.spring.fencing;

import dev.distlock.spring.DistributedLock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Mono;

/**
 * A stock table and the beans that write it under the SKU's lock: {@link Orders} takes the lock
 * (and may pause, standing for a GC pause or a frozen VM past the lease), {@link Stock} runs the
 * read-modify-write in a transaction, fenced or not.
 */
final class FencedStock {

    private FencedStock() {}

    static final String DDL = "CREATE TABLE IF NOT EXISTS %s (sku VARCHAR(64) PRIMARY KEY, quantity INT NOT NULL)";

    /** The transactional writer: fenced by the SKU's lock key, or the unfenced control. */
    public static class Stock {

        private final JdbcTemplate jdbc;
        private final String table;

        Stock(JdbcTemplate jdbc, String table) {
            this.jdbc = jdbc;
            this.table = table;
        }

        @Transactional
        @Fenced
        public int take(String sku, int quantity) {
            return takeUnfenced(sku, quantity);
        }

        /** Fenced under its own lock of the SKU, which joins a caller's hold of that key. */
        @DistributedLock(name = "stock", key = "#sku")
        @Transactional
        @Fenced
        public int takeLocked(String sku, int quantity) {
            return takeUnfenced(sku, quantity);
        }

        @Transactional
        public int takeUnfenced(String sku, int quantity) {
            int left = quantity(sku) - quantity;
            jdbc.update("UPDATE " + table + " SET quantity = ? WHERE sku = ?", left, sku);
            return left;
        }

        public int quantity(String sku) {
            return jdbc.queryForObject("SELECT quantity FROM " + table + " WHERE sku = ?", Integer.class, sku);
        }

        public void restock(String sku, int quantity) {
            jdbc.update("DELETE FROM " + table + " WHERE sku = ?", sku);
            jdbc.update("INSERT INTO " + table + " (sku, quantity) VALUES (?, ?)", sku, quantity);
        }
    }

    /** Takes the SKU's lock with a fixed lease, waits for {@code resume}, then writes the stock. */
    public static class Orders {

        private final Stock stock;

        Orders(Stock stock) {
            this.stock = stock;
        }

        @DistributedLock(name = "stock", key = "#sku", waitTime = "30s", leaseTime = "${test.lease-time:30s}")
        public int buy(String sku, int quantity, boolean fenced, CountDownLatch paused, CountDownLatch resume)
                throws InterruptedException {
            paused.countDown();
            if (!resume.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not resumed");
            }
            return fenced ? stock.take(sku, quantity) : stock.takeUnfenced(sku, quantity);
        }

        @DistributedLock(name = "stock", key = "#sku")
        public int buyNow(String sku, int quantity) {
            return stock.take(sku, quantity);
        }

        /** Holds both SKUs and takes from the first through the fenced method, which sees no one token. */
        @DistributedLock(
                name = "stock",
                keys = {"#from", "#to"})
        public int move(String from, String to, int quantity) {
            return stock.take(from, quantity);
        }

        /** Holds both SKUs and takes from the first under that SKU's own lock, which joins this hold. */
        @DistributedLock(
                name = "stock",
                keys = {"#from", "#to"})
        public int moveThroughTheSkusLock(String from, String to, int quantity) {
            return stock.takeLocked(from, quantity);
        }

        @DistributedLock(name = "stock", key = "#sku")
        @Fenced
        public CompletableFuture<String> buyAsync(String sku) {
            return CompletableFuture.completedFuture("bought " + sku);
        }

        @DistributedLock(name = "stock", key = "#sku")
        @Fenced
        public Mono<String> buyReactive(String sku) {
            return Mono.just("bought " + sku);
        }
    }
}
