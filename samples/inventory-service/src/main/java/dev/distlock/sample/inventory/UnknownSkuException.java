package dev.distlock.sample.inventory;

/** No stock row for the SKU. */
class UnknownSkuException extends RuntimeException {

    UnknownSkuException(String sku) {
        super("Unknown SKU " + sku);
    }
}
