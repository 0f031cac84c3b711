package dev.distlock.test;

import dev.distlock.core.FencingToken;
import java.time.Duration;

/**
 * One thing that happened to a lock of a controlled registry, as {@link LockHistory} records it.
 *
 * @param kind what happened
 * @param key the lock key as the application names it (without the registry's key prefix)
 * @param token the token of the hold concerned. Null for a failed call that concerned no hold
 * @param owner the owner id of a hold of this registry, or {@code "elsewhere:<holder>"}
 * @param thread the thread that made the call ("lease keeper" for what the test clock did)
 * @param at when, on the test clock, counted from the server's start
 * @param detail the reason or the error, empty when there is none
 */
public record LockEvent(
        Kind kind, String key, FencingToken token, String owner, String thread, Duration at, String detail) {

    /** What happened. */
    public enum Kind {
        /** A hold was granted (a reentrant acquisition joins its hold and is not recorded again). */
        ACQUIRED,
        /** Its owner released a hold. */
        RELEASED,
        /** A lease was renewed or extended (by the watchdog, by {@code extend}, or for a minimum hold). */
        RENEWED,
        /** A lease ran out (on the test clock), was lost on purpose, or was force-released. */
        LOST,
        /** {@link LockControl#holdElsewhere} took the key for another instance. */
        HELD_ELSEWHERE,
        /** The other instance's hold ended. Released by the test, or its time ran out. */
        FREED_ELSEWHERE,
        /** A call to the backend failed as a real outage would. */
        BACKEND_FAILED,
        /** {@link LockControl#assertHeld} found the calling thread without the lock. */
        UNHELD_CALL
    }

    /** An event of a call that concerned no hold. No token, no owner. */
    static LockEvent ofCall(Kind kind, String key, String thread, Duration at, String detail) {
        return new LockEvent(kind, key, null, "", thread, at, detail);
    }
}
