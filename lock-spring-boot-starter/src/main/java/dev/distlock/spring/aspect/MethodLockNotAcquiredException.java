package dev.distlock.spring.aspect;

import dev.distlock.core.DurationText;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import java.util.Optional;

/**
 * A {@link DistributedLock} method's lock was held elsewhere for the whole wait time. The message
 * names the key as the backend stores it (key prefix included) and the wait as configured.
 */
public final class MethodLockNotAcquiredException extends LockNotAcquiredException {

    private final String fullKey;
    private final Duration waitTime;
    private final String message;

    MethodLockNotAcquiredException(
            String key, LockRegistry registry, Duration waitTime, String method, Optional<LockHolder> holder) {
        super(key, registry.backend(), waitTime);
        this.fullKey = holder.map(LockHolder::key).orElse(registry.keyPrefix() + key);
        this.waitTime = waitTime;
        this.message = "Lock '" + fullKey + "' on " + registry.backend() + " was not acquired within "
                + DurationText.format(waitTime) + " for @DistributedLock " + method + ": "
                + holder.map(MethodLockNotAcquiredException::describe).orElse("another owner holds it")
                + ". Raise the method's waitTime (or distributed-lock.wait-time), use onFailure = SKIP, or handle"
                + " LockNotAcquiredException.";
    }

    private static String describe(LockHolder holder) {
        String who = holder.holder().isBlank() ? "another owner" : holder.holder();
        return "held by " + who + " with token " + holder.token().value()
                + holder.leaseLeft()
                        .map(left -> ", lease ends in " + DurationText.format(left))
                        .orElse("");
    }

    /** The key as the backend stores it, key prefix included. */
    public String fullKey() {
        return fullKey;
    }

    /** How long the call waited. */
    public Duration waitTime() {
        return waitTime;
    }

    @Override
    public String getMessage() {
        return message;
    }
}
