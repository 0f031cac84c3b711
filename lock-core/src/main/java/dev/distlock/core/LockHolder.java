package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;

/**
 * Who holds a key right now, as the backend has it recorded, whichever instance that is.
 *
 * @param key the key as stored on the backend (registry key prefix included)
 * @param holder the holder's readable description as it recorded it (application, host, pid,
 *     thread), empty when the holder did not record one
 * @param token the fencing token of the current hold
 * @param leaseLeft how long the server keeps the lock without renewal, empty when the lease is
 *     a session (ZooKeeper) or the backend cannot tell
 */
public record LockHolder(String key, String holder, FencingToken token, Optional<Duration> leaseLeft) {

    /** The most characters a note can have ({@link FencedLock#withNote}). */
    public static final int MAX_NOTE_LENGTH = 120;

    /** What separates the holder description from the note in the recorded text. */
    public static final String NOTE_MARKER = " note: ";

    /**
     * The note the holder recorded with its hold ({@link FencedLock#withNote}), empty when it recorded none. The
     * {@link #holder()} text still contains it, after the description.
     */
    public Optional<String> note() {
        int at = holder == null ? -1 : holder.lastIndexOf(NOTE_MARKER);
        return at < 0 ? Optional.empty() : Optional.of(holder.substring(at + NOTE_MARKER.length()));
    }
}
