package dev.distlock.core.spi;

import java.time.Duration;

/**
 * One acquisition attempt handed to a backend.
 *
 * @param key the full key (registry prefix included), already checked against the backend's limit
 * @param owner who will hold it
 * @param leaseTime how long the server keeps the lock without renewal; a backend rounds it up to
 *     its own precision (the engine's local view of the lease rounds down)
 * @param deadline when to give up waiting
 * @param holder a readable description of the holder ("app@host pid 123 thread main", at most
 *     {@link #MAX_HOLDER_LENGTH} printable ASCII characters), stored with the lock so that
 *     {@link LockBackend#holderOf} can tell an operator who holds a key
 * @param guardKey null, or the full key of a lock that must be free for this request to be granted, checked with
 *     the take in one atomic step; only with a zero wait, and only for a backend whose {@link
 *     LockBackend#guardsTakes} said yes to the pair
 */
public record LockRequest(
        String key, OwnerId owner, Duration leaseTime, Deadline deadline, String holder, String guardKey) {

    public static final int MAX_HOLDER_LENGTH = 200;

    public LockRequest(String key, OwnerId owner, Duration leaseTime, Deadline deadline, String holder) {
        this(key, owner, leaseTime, deadline, holder, null);
    }

    public LockRequest(String key, OwnerId owner, Duration leaseTime, Deadline deadline) {
        this(key, owner, leaseTime, deadline, "");
    }
}
