package dev.distlock.spring.actuate;

import dev.distlock.core.LockException;

/**
 * A {@code @DistributedLock} or {@code @DistributedSemaphore} method was called while the application shuts down. It
 * was not started, so that this instance can release its locks and permits. Retry on another instance.
 */
public class LockingStoppedException extends LockException {

    public LockingStoppedException(String method) {
        super("The application is shutting down, so the locked method " + method + " was not started: this"
                + " instance stops taking locks and semaphore permits so that it can release those it holds."
                + " Retry the call on another instance.");
    }
}
