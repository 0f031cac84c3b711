package dev.distlock.sample.inventory;

import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders}, {@code GET /stock/{sku}} and {@code POST /load-runs}. */
@RestController
class OrderController {

    private final InventoryService inventory;
    private final LoadRun loadRun;

    OrderController(InventoryService inventory, LoadRun loadRun) {
        this.inventory = inventory;
        this.loadRun = loadRun;
    }

    record OrderRequest(String sku, int quantity) {}

    @PostMapping("/orders")
    @ResponseStatus(HttpStatus.CREATED)
    InventoryService.Purchase order(@RequestBody OrderRequest order) {
        return inventory.buy(order.sku(), order.quantity());
    }

    @GetMapping("/stock/{sku}")
    Map<String, Object> stock(@PathVariable String sku) {
        return Map.of("sku", sku, "quantity", inventory.stockLeft(sku));
    }

    /** Runs the flash sale against this instance; see {@link LoadRun}. */
    @PostMapping("/load-runs")
    LoadRun.Result loadRun(
            @RequestParam(defaultValue = "300") int buyers,
            @RequestParam(defaultValue = "50") int stock,
            @RequestParam(defaultValue = "false") boolean unlocked)
            throws InterruptedException {
        return loadRun.run(buyers, stock, unlocked);
    }

    @ExceptionHandler(OutOfStockException.class)
    ResponseEntity<Map<String, String>> outOfStock(OutOfStockException e) {
        return error(HttpStatus.CONFLICT, e);
    }

    @ExceptionHandler(UnknownSkuException.class)
    ResponseEntity<Map<String, String>> unknownSku(UnknownSkuException e) {
        return error(HttpStatus.NOT_FOUND, e);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return error(HttpStatus.BAD_REQUEST, e);
    }

    // Left to the starter: 423 Locked when the lock was not acquired in time, 409 for a stale fencing
    // token, 503 while the lock backend is unreachable, each a problem detail.

    private static ResponseEntity<Map<String, String>> error(HttpStatus status, RuntimeException e) {
        return ResponseEntity.status(status).body(Map.of("error", String.valueOf(e.getMessage())));
    }
}
