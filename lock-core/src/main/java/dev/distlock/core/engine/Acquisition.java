package dev.distlock.core.engine;

import java.time.Duration;

/**
 * One acquisition, described once where the API is called and passed down whole: which key, how long
 * to wait, which lease, who will own the hold, and the options a few callers add.
 *
 * @param key the key as the caller named it
 * @param fullKey the key with the registry's prefix, as the server stores it
 * @param waitTime how long to wait for the key
 * @param leaseTime the lease asked for: what renewals extend it by, or the fixed lease
 * @param renewed true when a watchdog keeps the lease, false for a fixed lease
 * @param owner the owning thread, or null for a hold that belongs to its handle
 * @param note recorded with a new hold beside the holder description, or null
 * @param abandonment the attempt's cancellation, or null when nobody can abandon it
 * @param guardKey the full key that must be free for a zero-wait take, or null
 */
record Acquisition(
        String key,
        String fullKey,
        Duration waitTime,
        Duration leaseTime,
        boolean renewed,
        Thread owner,
        String note,
        Abandonment abandonment,
        String guardKey) {

    /** An acquisition by the calling thread whose lease a watchdog renews. */
    static Acquisition renewed(String key, String fullKey, Duration waitTime, Duration leaseTime) {
        return new Acquisition(key, fullKey, waitTime, leaseTime, true, Thread.currentThread(), null, null, null);
    }

    /** An acquisition by the calling thread with a fixed lease. */
    static Acquisition fixed(String key, String fullKey, Duration waitTime, Duration leaseTime) {
        return new Acquisition(key, fullKey, waitTime, leaseTime, false, Thread.currentThread(), null, null, null);
    }

    /** The same acquisition, its hold owned by the handle it returns instead of the calling thread. */
    Acquisition ownedByHandle() {
        return new Acquisition(key, fullKey, waitTime, leaseTime, renewed, null, note, abandonment, guardKey);
    }

    /** The same acquisition with {@code note} recorded beside the holder description (null for none). */
    Acquisition noted(String note) {
        return new Acquisition(key, fullKey, waitTime, leaseTime, renewed, owner, note, abandonment, guardKey);
    }

    /** The same acquisition, abandoned at the key's local gate when {@code abandonment} says so. */
    Acquisition abandonable(Abandonment abandonment) {
        return new Acquisition(key, fullKey, waitTime, leaseTime, renewed, owner, note, abandonment, guardKey);
    }

    /** The same acquisition, granted only while {@code guardFullKey} is free (checked with the take). */
    Acquisition unlessHeld(String guardFullKey) {
        return new Acquisition(key, fullKey, waitTime, leaseTime, renewed, owner, note, abandonment, guardFullKey);
    }

    boolean zeroWait() {
        return waitTime.isZero();
    }
}
