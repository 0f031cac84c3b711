package dev.distlock.contract.timing;

import java.time.Duration;
import java.time.Instant;

/**
 * The latest stalls of one JVM, when each ended (epoch milliseconds) and how long it was (microseconds), in a ring
 * that keeps the most recent {@value #CAPACITY}, minutes of a machine that stalls every few milliseconds.
 */
final class StallLog {

    static final int CAPACITY = 1 << 16;

    private final long[] endMillis = new long[CAPACITY];
    private final long[] lateMicros = new long[CAPACITY];
    private long count;

    synchronized void add(long endEpochMillis, long late) {
        int index = (int) (count % CAPACITY);
        endMillis[index] = endEpochMillis;
        lateMicros[index] = late;
        count++;
    }

    /** The longest stall whose span {@code [end - late, end]} overlaps {@code [from, to]}. */
    synchronized Duration worstStall(Instant from, Instant to) {
        long fromMillis = from.toEpochMilli();
        long toMillis = to.toEpochMilli();
        long worst = 0;
        for (int i = 0; i < Math.min(count, CAPACITY); i++) {
            long startMillis = endMillis[i] - (lateMicros[i] + 999) / 1000;
            if (endMillis[i] >= fromMillis && startMillis <= toMillis) {
                worst = Math.max(worst, lateMicros[i]);
            }
        }
        return Duration.ofNanos(worst * 1000);
    }
}
