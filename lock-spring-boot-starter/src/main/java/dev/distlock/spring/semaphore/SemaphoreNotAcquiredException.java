package dev.distlock.spring.semaphore;

import dev.distlock.core.DurationText;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.spring.DistributedSemaphore;
import java.time.Duration;

/**
 * A {@link DistributedSemaphore} method's permits did not come free within its wait time, because other calls held
 * them. It is a {@link LockNotAcquiredException}, so it is handled as a lock that was not acquired (a web request
 * gets {@code 423 Locked}). {@link #key()} is the semaphore's name.
 */
public final class SemaphoreNotAcquiredException extends LockNotAcquiredException {

    private final Duration waitTime;
    private final String message;

    SemaphoreNotAcquiredException(LeasedSemaphore semaphore, int wanted, Duration waitTime, String method) {
        super(semaphore.name(), semaphore.backend(), waitTime);
        this.waitTime = waitTime;
        this.message = "Semaphore '" + semaphore.name() + "' on " + semaphore.backend() + " had no " + wanted
                + " free of its " + semaphore.permits()
                + " permits within " + DurationText.format(waitTime) + " for @DistributedSemaphore " + method
                + ": other calls held them. Raise the method's waitTime (or distributed-lock.wait-time) or its permits,"
                + " use onFailure = SKIP, or handle LockNotAcquiredException.";
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
