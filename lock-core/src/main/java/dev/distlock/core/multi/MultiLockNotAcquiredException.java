package dev.distlock.core.multi;

import dev.distlock.core.DurationText;
import dev.distlock.core.LockNotAcquiredException;
import java.time.Duration;
import java.util.List;

/**
 * The keys of a {@link MultiLock} were not all acquired within the wait time (or the waiting thread was
 * interrupted). The keys taken before were released. {@link #key()} is the key that was not acquired,
 * {@link #keys()} the whole set.
 */
public class MultiLockNotAcquiredException extends LockNotAcquiredException {

    private final List<String> keys;
    private final String message;

    /** The set's {@code key} was held by another owner, or the wait ran out before it was asked for. */
    public MultiLockNotAcquiredException(List<String> keys, String key, String backend, Duration waitTime) {
        super(key, backend, waitTime);
        this.keys = List.copyOf(keys);
        this.message = "Locks " + keys + " on " + backend + " were not all acquired within "
                + DurationText.format(waitTime) + ": lock '" + key + "' was held by another owner for the rest of the"
                + " wait, and the keys taken before it were released. Raise the wait time or handle"
                + " LockNotAcquiredException.";
    }

    /** The thread was interrupted while waiting for the set's {@code key}. */
    public MultiLockNotAcquiredException(
            List<String> keys, String key, String backend, Duration waitTime, InterruptedException cause) {
        super(key, backend, waitTime, cause);
        this.keys = List.copyOf(keys);
        this.message = "Interrupted while waiting up to " + DurationText.format(waitTime) + " for locks " + keys
                + " on " + backend + " (waiting for lock '" + key + "'); the keys taken before it were released.";
    }

    /** Every key of the set, in the order they are taken. */
    public List<String> keys() {
        return keys;
    }

    @Override
    public String getMessage() {
        return message;
    }
}
