package dev.distlock.core;

import java.time.Duration;

/**
 * Told about what happens to the holds of one registry. Meters, traces and logs are built on these events. Every hold reports {@link #holdStarted} once and {@link #holdEnded} once, whether it
 * was released, lost or ended by {@code close()}. Callbacks run on the thread where the event
 * happens (a caller's thread or a registry thread), so they must be quick and must not throw.
 *
 * @see LockRegistry#addObserver(LockObserver)
 */
public interface LockObserver {

    /** How an acquisition attempt ended. */
    enum Outcome {
        ACQUIRED,
        TIMEOUT,
        ERROR,
        INTERRUPTED
    }

    /** An acquisition attempt ended after waiting {@code waited} (reentrant joins included). */
    default void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {}

    /** A new hold began, because the key was taken on the server. */
    default void holdStarted(HoldInfo hold) {}

    /** The hold's lease is known lost. {@link #holdEnded} follows when its owner releases it. */
    default void leaseLost(HoldInfo hold, String reason) {}

    /** The hold ended. Its owner released it, it was replaced after a loss, or {@code close()} ended it. */
    default void holdEnded(HoldInfo hold) {}

    /** The backend failed a call (acquire, renew or release) for {@code key}. */
    default void backendError(String backend, String key, RuntimeException error) {}
}
