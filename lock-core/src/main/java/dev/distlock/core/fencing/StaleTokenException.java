package dev.distlock.core.fencing;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockException;

/**
 * A resource refused a token below the highest it accepted. The holder's lease ended and a newer holder of the lock
 * key has written or registered to write. Stop, and acquire the lock again instead of retrying with the same hold.
 */
public class StaleTokenException extends LockException {

    private final String resource;
    private final String lockKey;
    private final FencingToken refused;
    private final FencingToken highest;

    public StaleTokenException(String resource, String lockKey, FencingToken refused, FencingToken highest) {
        super("Resource '" + resource + "' refused stale fencing token " + refused + " of lock '" + lockKey
                + "': it already accepted token " + highest
                + " from a newer holder. This hold's lease ended; acquire the lock again before writing.");
        this.resource = resource;
        this.lockKey = lockKey;
        this.refused = refused;
        this.highest = highest;
    }

    public String resource() {
        return resource;
    }

    public String lockKey() {
        return lockKey;
    }

    public FencingToken refused() {
        return refused;
    }

    public FencingToken highest() {
        return highest;
    }
}
