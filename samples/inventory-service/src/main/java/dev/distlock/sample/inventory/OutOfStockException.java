package dev.distlock.sample.inventory;

/** Fewer items left than asked for. */
class OutOfStockException extends RuntimeException {

    OutOfStockException(String sku, int asked, int left) {
        super("Only " + left + " of " + sku + " left, " + asked + " asked for");
    }
}
