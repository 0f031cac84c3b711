package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Pauses between a waiter's polls, doubling from {@code initial} up to {@code max}. Each is drawn
 * from its upper half, so that waiters drift apart and no pause shrinks to a busy loop.
 */
record Backoff(Duration initial, Duration max) {

    Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "Poll back-off needs 0 < initial <= max, was initial " + initial + ", max " + max);
        }
    }

    /** The pause before poll number {@code attempt} (1 for the first poll after the first try), in nanoseconds. */
    long pauseNanos(int attempt) {
        long ceiling = initial.toNanos() << Math.min(attempt - 1, 30);
        if (ceiling <= 0 || ceiling > max.toNanos()) {
            ceiling = max.toNanos();
        }
        long half = ceiling / 2;
        return half + ThreadLocalRandom.current().nextLong(ceiling - half + 1);
    }
}
