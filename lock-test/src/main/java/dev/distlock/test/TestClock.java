package dev.distlock.test;

import java.time.Duration;

/**
 * The clock of a {@link TestLockServer}, the JVM's monotonic clock plus what tests advanced it by,
 * so time passes as usual and a test jumps ahead instead of sleeping. It never goes back.
 */
final class TestClock {

    private final long startNanos = System.nanoTime();
    private volatile long offsetNanos;

    long now() {
        return System.nanoTime() + offsetNanos;
    }

    /** Time on this clock since it started, jumps included. */
    Duration elapsed() {
        return Duration.ofNanos(now() - startNanos);
    }

    /** Jumps to {@code atNanos} when that is ahead. Under the server's lock, the one writer. */
    void moveTo(long atNanos) {
        long ahead = atNanos - now();
        if (ahead > 0) {
            offsetNanos += ahead;
        }
    }
}
