package dev.distlock.sample.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock;
import dev.distlock.test.LockControl;
import dev.distlock.test.LockEvent;
import dev.distlock.test.spring.AutoConfigureTestLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;

/**
 * The README's force-release flow: an order holds the SKU's lock and is in its checkout (it has read
 * the stock), an operator evicts the holder, the next order runs. With {@code @Fenced} no update is
 * lost: the next order's transaction waits for the evicted one's (or the evicted one is refused),
 * so the stock left is the initial stock less the orders that were accepted. The control is the
 * same order without the fence: both orders are accepted and one of the two updates is lost. A lease
 * lost mid-order (the holder paused past its lease) is the same story without an operator.
 *
 * <p>The locks are the test support's: the test waits for the order to hold its lock (and, for the
 * control, to have read the stock) instead of sleeping.
 */
@SpringBootTest(properties = "inventory.checkout-time=3s")
@AutoConfigureTestLocks
class ForceReleaseMidOrderTest {

    private static final int STOCK = 100;

    @Autowired
    InventoryService inventory;

    @Autowired
    UnfencedOrders unfenced;

    @Autowired
    StockRepository stock;

    @Autowired
    LockRegistry registry;

    @Autowired
    LockControl locks;

    /** The purchase of {@link InventoryService#buy} with the lock and the transaction but without {@code @Fenced}. */
    static class UnfencedOrders {

        private final InventoryService inventory;
        private final StockRepository stock;
        /** Opens when an order has read the stock, so the test evicts it between its read and its write. */
        private final CountDownLatch read = new CountDownLatch(1);

        UnfencedOrders(InventoryService inventory, StockRepository stock) {
            this.inventory = inventory;
            this.stock = stock;
        }

        /** Through the bean's proxy: the latch of the instance that runs the orders. */
        public CountDownLatch stockRead() {
            return read;
        }

        @DistributedLock(name = "stock", key = "#sku", waitTime = "30s")
        @Transactional
        public int buy(String sku, int quantity) {
            int left = inventory.available(sku, quantity);
            read.countDown();
            inventory.checkout();
            stock.write(sku, left - quantity);
            stock.recordSale(sku, quantity, null);
            return quantity;
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Control {
        @Bean
        UnfencedOrders unfencedOrders(InventoryService inventory, StockRepository stock) {
            return new UnfencedOrders(inventory, stock);
        }
    }

    @Test
    void evictingAHolderMidOrderLosesNoUpdate() throws Exception {
        String sku = "SKU-EVICT";
        List<Integer> accepted = evictMidOrderThenOrderAgain(sku, this::fencedOrder, null, this::forceRelease);
        assertThat(accepted).as("orders accepted").isNotEmpty();
        assertThat(stock.quantity(sku))
                .contains(STOCK - accepted.stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void losingTheLeaseMidOrderLosesNoUpdate() throws Exception {
        String sku = "SKU-LEASE-LOST";
        List<Integer> accepted = evictMidOrderThenOrderAgain(
                sku,
                this::fencedOrder,
                null,
                key -> assertThat(locks.loseLease(key))
                        .as("the order's hold lost its lease")
                        .isNotNull());
        assertThat(accepted).as("orders accepted").isNotEmpty();
        assertThat(stock.quantity(sku))
                .contains(STOCK - accepted.stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void controlWithoutTheFenceLosesTheUpdateOfOneOfTwoAcceptedOrders() throws Exception {
        List<Integer> accepted = evictMidOrderThenOrderAgain(
                "SKU-EVICT-CONTROL", unfenced::buy, unfenced.stockRead(), this::forceRelease);
        assertThat(accepted).as("both orders accepted").containsExactlyInAnyOrder(2, 3);
        assertThat(stock.quantity("SKU-EVICT-CONTROL").orElseThrow())
                .as("stock left after two accepted orders of 2 and 3")
                .isNotEqualTo(STOCK - 5);
    }

    private int fencedOrder(String sku, int quantity) {
        inventory.buy(sku, quantity);
        return quantity;
    }

    private void forceRelease(String key) {
        assertThat(registry.forceRelease(key)).as("the holder was evicted").isTrue();
    }

    /**
     * Order 1 (2 items) takes the lock and spends 3 s in checkout; once it holds the lock (and has
     * opened {@code read}, when given: has read the stock), {@code evict} takes the key from it and order 2
     * (3 items) runs. Returns the quantities of the orders that succeeded.
     */
    private List<Integer> evictMidOrderThenOrderAgain(
            String sku, BiFunction<String, Integer, Integer> order, CountDownLatch read, Consumer<String> evict)
            throws Exception {
        stock.restock(sku, STOCK);
        String key = "stock:" + sku;
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> order.apply(sku, 2));
        locks.history().await(LockEvent.Kind.ACQUIRED, key, Duration.ofSeconds(30));
        if (read != null) {
            assertThat(read.await(30, TimeUnit.SECONDS))
                    .as("order 1 read the stock")
                    .isTrue();
        }
        evict.accept(key);
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> order.apply(sku, 3));

        List<Integer> accepted = new ArrayList<>();
        for (CompletableFuture<Integer> each : List.of(first, second)) {
            try {
                accepted.add(each.get(60, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                assertThat(e.getCause())
                        .as("only a stale order is refused")
                        .isInstanceOf(dev.distlock.spring.fencing.StaleFencingTokenException.class);
            }
        }
        return accepted;
    }
}
