package dev.distlock.spring;

import dev.distlock.core.LockNotAcquiredException;
import java.time.Duration;

/**
 * A {@link DistributedLock} method's lock was held elsewhere for the whole wait time. The message
 * names the key as the backend stores it (key prefix included) and the wait as configured.
 */
final class MethodLockNotAcquiredException extends LockNotAcquiredException {

    private final String fullKey;
    private final Duration waitTime;
    private final String message;

    MethodLockNotAcquiredException(String key, String fullKey, String backend, Duration waitTime, String method) {
        super(key, backend, waitTime);
        this.fullKey = fullKey;
        this.waitTime = waitTime;
        this.message = "Lock '" + fullKey + "' on " + backend + " was not acquired within "
                + Durations.format(waitTime) + " for @DistributedLock " + method
                + ": another owner holds it. Raise the method's waitTime (or distributed-lock.wait-time), use"
                + " onFailure = SKIP, or handle LockNotAcquiredException.";
    }

    /** The key as the backend stores it, key prefix included. */
    String fullKey() {
        return fullKey;
    }

    /** How long the call waited. */
    Duration waitTime() {
        return waitTime;
    }

    @Override
    public String getMessage() {
        return message;
    }
}
