package dev.distlock.core;

import java.time.Duration;

/** The key did not come free within the wait time (or the waiting thread was interrupted). */
public class LockNotAcquiredException extends LockException {

    private final String key;

    public LockNotAcquiredException(String key, String backend, Duration waitTime) {
        super("Lock '" + key + "' on " + backend + " was not acquired within " + DurationText.format(waitTime)
                + ": another owner holds it. Raise the wait time or handle LockNotAcquiredException.");
        this.key = key;
    }

    public LockNotAcquiredException(String key, String backend, Duration waitTime, InterruptedException cause) {
        super(
                "Interrupted while waiting up to " + DurationText.format(waitTime) + " for lock '" + key + "' on "
                        + backend,
                cause);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
