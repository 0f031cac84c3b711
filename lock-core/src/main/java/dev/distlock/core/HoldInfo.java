package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of one hold of this instance, for operators and observers.
 *
 * @param key the key as the caller named it
 * @param fullKey the key as stored on the backend (registry key prefix included)
 * @param backend the backend's name
 * @param token the hold's fencing token
 * @param heldSince when the hold began (this JVM's clock)
 * @param leaseLeft how long the local view of the lease still lasts; empty when it lasts as long
 *     as the session does
 * @param renewed true when the watchdog renews the lease, false for a fixed lease
 * @param valid false once the lease is known lost or the hold ended
 * @param owner the owning thread's name, or {@code "handle"} for a hold owned by its handle
 * @param kind a plain lock's hold, or one side of a read/write lock's
 */
public record HoldInfo(
        String key,
        String fullKey,
        String backend,
        FencingToken token,
        Instant heldSince,
        Optional<Duration> leaseLeft,
        boolean renewed,
        boolean valid,
        String owner,
        Kind kind) {

    /** What kind of lock a hold belongs to. */
    public enum Kind {
        /** A plain lock from {@link LockRegistry#obtain(String)}. */
        EXCLUSIVE,
        /** The read side of a {@link FencedReadWriteLock}. */
        READ,
        /** The write side of a {@link FencedReadWriteLock}. */
        WRITE
    }

    /** The same hold, marked as one of {@code kind}. */
    public HoldInfo withKind(Kind kind) {
        return new HoldInfo(key, fullKey, backend, token, heldSince, leaseLeft, renewed, valid, owner, kind);
    }
}
