package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How a waiter pauses between polls of a key, until a release of the key is signalled or the pause
 * is over. Polling is always the safety net. Signals let the pauses grow longer.
 */
interface ReleaseSignals extends AutoCloseable {

    /** Pauses of plain polling, short so that a release is seen within about 25 ms. */
    Backoff POLLING = new Backoff(Duration.ofMillis(2), Duration.ofMillis(25));

    /** The pauses between polls. */
    Backoff backoff();

    /** Starts listening for releases of {@code key}, before the waiter's first poll, so that none is missed. */
    Subscription subscribe(String key);

    /**
     * Whether a release can wake this registry alone, on a channel of its own. A waiter then
     * subscribes before its first attempt, so that a refused attempt takes a place in the queue.
     */
    default boolean wakesOne() {
        return false;
    }

    /** The place in its key's queue that the next attempt of {@code waiter} asks for, none by default. */
    default WaitQueue queue(Subscription waiter) {
        return WaitQueue.NONE;
    }

    /** Where a wake-up that none of this registry's waiters takes goes, to be passed on. Receives the key. */
    default void onUnclaimed(Consumer<String> handler) {}

    @Override
    void close();

    /** One waiter's interest in one key. */
    interface Subscription extends AutoCloseable {

        /** Returns after {@code nanos}, or earlier when the key was released since the last call. */
        void await(long nanos) throws InterruptedException;

        @Override
        void close();
    }

    static ReleaseSignals polling() {
        return new ReleaseSignals() {
            @Override
            public Backoff backoff() {
                return POLLING;
            }

            @Override
            public Subscription subscribe(String key) {
                return new Subscription() {
                    @Override
                    public void await(long nanos) throws InterruptedException {
                        TimeUnit.NANOSECONDS.sleep(nanos);
                    }

                    @Override
                    public void close() {}
                };
            }

            @Override
            public void close() {}
        };
    }
}
