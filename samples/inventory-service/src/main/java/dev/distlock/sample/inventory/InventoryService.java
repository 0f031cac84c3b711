package dev.distlock.sample.inventory;

import dev.distlock.core.FencingToken;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.fencing.Fenced;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Buying: read the stock, check it, write it back. Without the lock, two buyers can read the same stock. */
@Service
public class InventoryService {

    private final StockRepository stock;
    private final Duration checkoutTime;

    InventoryService(StockRepository stock, @Value("${inventory.checkout-time:2ms}") Duration checkoutTime) {
        this.stock = stock;
        this.checkoutTime = checkoutTime;
    }

    /** What a purchase returns. */
    public record Purchase(String sku, int quantity, int stockLeft, long token) {}

    /**
     * Buys under the SKU's lock; the lock is released after the transaction commits. {@code @Fenced}
     * raises the SKU's fence to this hold's token as the transaction's first statement, before the
     * stock is read: a buyer whose lease ran out is refused once a newer buyer has registered, and a
     * newer buyer waits for an older one's transaction to end before it reads the stock.
     */
    @DistributedLock(name = "stock", key = "#sku", waitTime = "${inventory.order-wait-time:30s}")
    @Transactional
    @Fenced
    public Purchase buy(String sku, int quantity) {
        FencingToken token = LockContext.currentToken();
        int left = available(sku, quantity);
        checkout();
        stock.write(sku, left - quantity);
        stock.recordSale(sku, quantity, token.value());
        return new Purchase(sku, quantity, left - quantity, token.value());
    }

    /** The same purchase with no lock and no fence: the control that shows overselling. */
    public Purchase buyUnlocked(String sku, int quantity) {
        int left = available(sku, quantity);
        checkout();
        stock.write(sku, left - quantity);
        stock.recordSale(sku, quantity, null);
        return new Purchase(sku, quantity, left - quantity, 0);
    }

    public int stockLeft(String sku) {
        return stock.quantity(sku).orElseThrow(() -> new UnknownSkuException(sku));
    }

    int available(String sku, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + quantity);
        }
        int left = stockLeft(sku);
        if (left < quantity) {
            throw new OutOfStockException(sku, quantity, left);
        }
        return left;
    }

    /** Stands for the work between reading and writing the stock (payment check, pricing). */
    void checkout() {
        try {
            Thread.sleep(checkoutTime.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during checkout", e);
        }
    }
}
