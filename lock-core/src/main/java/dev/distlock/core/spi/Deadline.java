package dev.distlock.core.spi;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A point on the local monotonic clock after which a wait gives up. */
public final class Deadline {

    /** Waits longer than this are treated as "forever"; it also keeps nanosecond sums from overflowing. */
    private static final long FOREVER_NANOS = TimeUnit.DAYS.toNanos(365L * 100);

    private final long atNanos;
    private final boolean forever;

    private Deadline(long atNanos, boolean forever) {
        this.atNanos = atNanos;
        this.forever = forever;
    }

    public static Deadline after(Duration wait) {
        if (wait.compareTo(Duration.ofNanos(FOREVER_NANOS)) >= 0) {
            return never();
        }
        return new Deadline(System.nanoTime() + Math.max(0, wait.toNanos()), false);
    }

    public static Deadline never() {
        return new Deadline(0, true);
    }

    public boolean isForever() {
        return forever;
    }

    /** Nanoseconds left, 0 when passed; 100 years' worth for a deadline that never comes. */
    public long remainingNanos() {
        if (forever) {
            return FOREVER_NANOS;
        }
        return Math.max(0, atNanos - System.nanoTime());
    }

    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /** Milliseconds left, rounded up so that a positive remainder never turns into a zero-length wait. */
    public long remainingMillis() {
        return TimeUnit.NANOSECONDS.toMillis(remainingNanos() + 999_999);
    }

    public boolean hasPassed() {
        return !forever && atNanos - System.nanoTime() <= 0;
    }

    @Override
    public String toString() {
        return forever ? "Deadline[never]" : "Deadline[in " + remaining() + "]";
    }
}
