package dev.distlock.contract;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Detects two owners inside a critical section at once. Each pass reads a shared counter,
 * sleeps, and writes it back plus one. Under a working lock the final count equals the
 * completed passes. Under overlap, updates are lost and more than one pass is seen active.
 */
public final class OverlapDetector {

    private final AtomicInteger counter = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger maxActive = new AtomicInteger();
    private final long sleepMillis;

    public OverlapDetector(long sleepMillis) {
        this.sleepMillis = sleepMillis;
    }

    /** One read–sleep–write pass. The caller should hold the lock under test. */
    public void criticalSection() throws InterruptedException {
        int now = active.incrementAndGet();
        maxActive.accumulateAndGet(now, Math::max);
        try {
            int read = counter.get();
            Thread.sleep(sleepMillis);
            counter.set(read + 1);
        } finally {
            active.decrementAndGet();
        }
        completed.incrementAndGet();
    }

    public int count() {
        return counter.get();
    }

    public int completed() {
        return completed.get();
    }

    public int maxActive() {
        return maxActive.get();
    }

    /** True when updates were lost or two passes ran at once. */
    public boolean overlapSeen() {
        return maxActive.get() > 1 || counter.get() != completed.get();
    }
}
