package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Pauses between polls of a waiter: doubling from {@code initial} up to {@code max}, each pause
 * drawn at random from its upper half, so waiters that started together drift apart instead of
 * hitting the table in step, and no pause shrinks to a busy loop.
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
