package dev.distlock.contract;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Counts the permits held at once, for semaphore tests. Each pass holds its permits until the holders inside reach
 * {@code fillAt} together (or {@code linger} passes), so a working semaphore of {@code fillAt} permits is seen full, and
 * one that lets more in is seen above its count: {@link #maxHeld()} then exceeds what the test allows.
 */
public final class PermitCounter {

    private final int fillAt;
    private int held;
    private int maxHeld;
    private int fills;
    private int completed;

    public PermitCounter(int fillAt) {
        this.fillAt = fillAt;
    }

    /** One pass holding {@code permits} permits. The caller holds them while this runs. */
    public void hold(int permits, Duration linger) throws InterruptedException {
        long end = System.nanoTime() + linger.toNanos();
        synchronized (this) {
            int fillsAtEntry = fills;
            held += permits;
            maxHeld = Math.max(maxHeld, held);
            if (held >= fillAt) {
                fills++;
                notifyAll();
            }
            try {
                long left;
                while (fills == fillsAtEntry && (left = end - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } finally {
                held -= permits;
                completed++;
            }
        }
    }

    /** The most permits held at once. */
    public synchronized int maxHeld() {
        return maxHeld;
    }

    /** Passes completed. */
    public synchronized int completed() {
        return completed;
    }
}
