package dev.distlock.core.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads waiting for a key of one registry, so that {@code close()} can end their waits.
 * Closing interrupts each waiter at most once, and only while it still waits: a thread that
 * has already left never receives the interrupt.
 */
final class Waiters {

    private static final int WAITING = 0;
    private static final int LEFT = 1;
    private static final int ENDED_BY_CLOSE = 2;

    static final class Waiter {
        private final Thread thread = Thread.currentThread();
        private final AtomicInteger state = new AtomicInteger(WAITING);
    }

    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

    /** How many threads wait now. */
    int count() {
        return waiting.size();
    }

    Waiter enter() {
        Waiter waiter = new Waiter();
        waiting.add(waiter);
        return waiter;
    }

    /**
     * The waiter stops waiting.
     *
     * @return true when {@link #endAll} ended its wait; the interrupt it received is cleared
     */
    boolean leave(Waiter waiter) {
        waiting.remove(waiter);
        if (waiter.state.compareAndSet(WAITING, LEFT)) {
            return false;
        }
        Thread.interrupted();
        return true;
    }

    void endAll() {
        for (Waiter waiter : waiting) {
            if (waiter.state.compareAndSet(WAITING, ENDED_BY_CLOSE)) {
                waiter.thread.interrupt();
            }
        }
    }

    /** Waits up to {@code millis} for every waiter to have left. */
    void awaitEmpty(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
