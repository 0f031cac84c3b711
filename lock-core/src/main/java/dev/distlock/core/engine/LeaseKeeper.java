package dev.distlock.core.engine;

import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps leases: one sweep thread takes due work from a queue ordered by time (renewals, checks
 * of a lease's end, ends of fixed leases) and hands calls to the backend to a pool, so a slow
 * renewal never delays another hold's. Each hold has at most one entry per {@link Slot}; a new
 * entry replaces the slot's old one, and a hold that ends takes its entries out, so the queue
 * holds only live holds' work and no ended hold stays reachable from it.
 */
final class LeaseKeeper implements AutoCloseable {

    /** The kinds of work a hold has queued: at most one entry of each. */
    enum Slot {
        /** The next renewal, or the end of a fixed lease or of a minimum hold. */
        TIMER,
        /** The check that the lease has not run out without a confirmed renewal. */
        LEASE_END
    }

    /** A piece of work due at {@code atNanos}; {@code task} runs on the sweep thread and must be quick. */
    record Due(long atNanos, long sequence, Runnable task) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            int byTime = Long.compare(atNanos - other.atNanos, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final TreeSet<Due> queue = new TreeSet<>();
    private final AtomicLong sequence = new AtomicLong();
    private final ExecutorService pool;
    private final Thread sweeper;
    private volatile boolean closed;
    /** When the sleeping sweep thread wakes on its own; guarded by {@code lock}. */
    private long sweepWakesAt;

    LeaseKeeper(String backend) {
        AtomicInteger threads = new AtomicInteger();
        pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
            Thread thread = new Thread(task, "distlock-" + backend + "-lease-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        sweeper = new Thread(this::sweep, "distlock-" + backend + "-lease-sweep");
        sweeper.setDaemon(true);
        sweeper.start();
    }

    /**
     * Runs {@code task} on the sweep thread at {@code atNanos} (System.nanoTime), in place of what
     * {@code hold} had queued in {@code slot}; the task must not block.
     */
    void at(Hold<?> hold, Slot slot, long atNanos, Runnable task) {
        Due due = new Due(atNanos, sequence.incrementAndGet(), task);
        lock.lock();
        try {
            Due replaced = hold.dues[slot.ordinal()];
            if (replaced != null) {
                queue.remove(replaced);
            }
            hold.dues[slot.ordinal()] = due;
            queue.add(due);
            // Wake the sweep thread only when it would otherwise sleep past the new entry.
            if (atNanos - sweepWakesAt < 0) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes out everything {@code hold} has queued. */
    void forget(Hold<?> hold) {
        lock.lock();
        try {
            for (int i = 0; i < hold.dues.length; i++) {
                if (hold.dues[i] != null) {
                    queue.remove(hold.dues[i]);
                    hold.dues[i] = null;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code task} on a pool thread now: calls to the backend and owners' callbacks. */
    void run(Runnable task) {
        if (!closed) {
            try {
                pool.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // Closing: nothing is kept any more.
            }
        }
    }

    private void sweep() {
        while (!closed) {
            Due due;
            lock.lock();
            try {
                due = queue.isEmpty() ? null : queue.first();
                long now = System.nanoTime();
                long wait = due == null ? TimeUnit.SECONDS.toNanos(1) : due.atNanos - now;
                if (wait > 0) {
                    sweepWakesAt = now + wait;
                    changed.awaitNanos(wait);
                    sweepWakesAt = System.nanoTime();
                    continue;
                }
                queue.pollFirst();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                due.task.run();
            } catch (RuntimeException e) {
                LockEngine.log.error("Lease keeping task failed", e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sweeper.interrupt();
        pool.shutdownNow();
    }
}
