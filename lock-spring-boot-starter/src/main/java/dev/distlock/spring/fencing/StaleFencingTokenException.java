package dev.distlock.spring.fencing;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.StaleTokenException;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * A resource refused the current hold's token, because a newer holder of the lock has registered with it and this
 * hold's lease ended. It belongs to Spring's optimistic-locking family, so retry templates and handlers of
 * {@code DataAccessException} treat it as such. The core exception is the cause. Retrying means taking the lock
 * again, not repeating the write with the same hold.
 */
public class StaleFencingTokenException extends OptimisticLockingFailureException {

    private final StaleTokenException staleToken;

    public StaleFencingTokenException(StaleTokenException staleToken) {
        super(staleToken.getMessage(), staleToken);
        this.staleToken = staleToken;
    }

    /** The resource that refused the token. */
    public String resource() {
        return staleToken.resource();
    }

    /** The lock key the token belongs to. */
    public String lockKey() {
        return staleToken.lockKey();
    }

    /** The token that was refused. */
    public FencingToken refused() {
        return staleToken.refused();
    }

    /** The highest token the resource accepted. */
    public FencingToken highest() {
        return staleToken.highest();
    }
}
