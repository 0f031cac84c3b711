package dev.distlock.sample.inventory;

import dev.distlock.core.FencingToken;

/** The stock table refused a write: a holder with a newer token has written since this lock was taken. */
class StaleTokenException extends RuntimeException {

    StaleTokenException(String sku, FencingToken token) {
        super("Stock write for " + sku + " with fencing token " + token
                + " refused: a newer lock holder has written since. This holder's lease was lost.");
    }
}
