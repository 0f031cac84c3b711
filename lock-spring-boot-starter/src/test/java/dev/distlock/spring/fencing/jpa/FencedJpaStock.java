package dev.distlock.spring.fencing.jpa;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.fencing.Fenced;
import dev.distlock.spring.fencing.StaleFencingTokenException;
import jakarta.persistence.EntityManager;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.transaction.annotation.Transactional;

/**
 * Beans that write {@link StockLevel} through JPA under the SKU's lock: {@link Orders} takes the
 * lock (and may pause past its lease), {@link Stock} writes in a transaction after the fence check.
 */
final class FencedJpaStock {

    private FencedJpaStock() {}

    /** The fence check alone, for callers that run it inside their own transaction. */
    public static class Guard {

        @Fenced
        public void admit() {}
    }

    /** The transactional JPA writer. */
    public static class Stock {

        private final EntityManager entityManager;
        private final Guard guard;

        private final AtomicReference<StaleFencingTokenException> caught = new AtomicReference<>();

        Stock(EntityManager entityManager, Guard guard) {
            this.entityManager = entityManager;
            this.guard = guard;
        }

        @Transactional
        @Fenced
        public int take(String sku, int quantity) {
            return entityManager.find(StockLevel.class, sku).take(quantity);
        }

        /** Runs the check in this transaction, swallows its refusal and writes anyway: a caller's mistake. */
        @Transactional
        public int takeIgnoringRefusal(String sku, int quantity) {
            try {
                guard.admit();
            } catch (StaleFencingTokenException e) {
                caught.set(e);
            }
            return entityManager.find(StockLevel.class, sku).take(quantity);
        }

        @Transactional
        public void restock(String sku, int quantity) {
            StockLevel level = entityManager.find(StockLevel.class, sku);
            if (level != null) {
                entityManager.remove(level);
                entityManager.flush();
            }
            entityManager.persist(new StockLevel(sku, quantity));
        }

        /** The refusal a {@link #takeIgnoringRefusal} call caught, or null. */
        public StaleFencingTokenException caught() {
            return caught.get();
        }

        @Transactional(readOnly = true)
        public int quantity(String sku) {
            return entityManager.find(StockLevel.class, sku).quantity();
        }
    }

    /** Takes the SKU's lock with a fixed lease, waits for {@code resume}, then writes the stock. */
    public static class Orders {

        private final Stock stock;

        Orders(Stock stock) {
            this.stock = stock;
        }

        @DistributedLock(name = "stock", key = "#sku", waitTime = "30s", leaseTime = "${test.lease-time:30s}")
        public int buy(String sku, int quantity, boolean ignoreRefusal, CountDownLatch paused, CountDownLatch resume)
                throws InterruptedException {
            paused.countDown();
            if (!resume.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not resumed");
            }
            return ignoreRefusal ? stock.takeIgnoringRefusal(sku, quantity) : stock.take(sku, quantity);
        }
    }
}
