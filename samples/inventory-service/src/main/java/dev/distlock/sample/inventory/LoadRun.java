package dev.distlock.sample.inventory;

import dev.distlock.core.LockRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.stereotype.Component;

/**
 * The flash sale: puts {@code stock} items of one SKU on the shelf and lets {@code buyers}
 * threads, released together, each buy one. Sold is counted from the sale table, so an
 * oversold item shows even when the stock write that should have refused it was lost.
 */
@Component
class LoadRun {

    static final String SKU = "FLASH-SALE-1";

    private final InventoryService inventory;
    private final StockRepository stock;
    private final LockRegistry registry;

    LoadRun(InventoryService inventory, StockRepository stock, LockRegistry registry) {
        this.inventory = inventory;
        this.stock = stock;
        this.registry = registry;
    }

    /** What a load run did. */
    record Result(
            String mode,
            String backend,
            int buyers,
            int stock,
            int sold,
            int stockLeft,
            int oversold,
            int outOfStock,
            int errors,
            String firstError,
            long elapsedMillis) {

        String summary() {
            return "load run (" + mode + ", " + backend + " lock backend): buyers=" + buyers + " stock=" + stock
                    + " -> sold=" + sold + " stock-left=" + stockLeft + " oversold=" + oversold + " out-of-stock="
                    + outOfStock + " errors=" + errors + " elapsed=" + elapsedMillis + "ms"
                    + (firstError == null ? "" : " first-error=\"" + firstError + "\"");
        }
    }

    synchronized Result run(int buyers, int initialStock, boolean unlocked) throws InterruptedException {
        if (buyers < 1 || initialStock < 0) {
            throw new IllegalArgumentException("buyers must be positive and stock zero or more");
        }
        stock.restock(SKU, initialStock);
        AtomicInteger outOfStock = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(buyers);
        List<Future<?>> orders = new ArrayList<>();
        long begin;
        try {
            for (int i = 0; i < buyers; i++) {
                orders.add(pool.submit(() -> {
                    start.await();
                    try {
                        if (unlocked) {
                            inventory.buyUnlocked(SKU, 1);
                        } else {
                            inventory.buy(SKU, 1);
                        }
                    } catch (OutOfStockException e) {
                        outOfStock.incrementAndGet();
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                    return null;
                }));
            }
            begin = System.nanoTime();
            start.countDown();
            for (Future<?> order : orders) {
                try {
                    order.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        long elapsed = (System.nanoTime() - begin) / 1_000_000;
        int sold = stock.sold(SKU);
        return new Result(
                unlocked ? "UNLOCKED control" : "locked",
                registry.backend(),
                buyers,
                initialStock,
                sold,
                inventory.stockLeft(SKU),
                Math.max(0, sold - initialStock),
                outOfStock.get(),
                errors.get(),
                firstError.get(),
                elapsed);
    }
}
