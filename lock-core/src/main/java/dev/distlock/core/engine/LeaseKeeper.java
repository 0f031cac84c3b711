package dev.distlock.core.engine;

import java.util.PriorityQueue;
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
 * renewal never delays another hold's. Entries are never cancelled: an entry for a hold that
 * has ended, or whose lease has moved on, finds nothing to do when it comes due.
 */
final class LeaseKeeper implements AutoCloseable {

    /** A piece of work due at {@code atNanos}; {@code task} runs on the sweep thread and must be quick. */
    private record Due(long atNanos, long sequence, Runnable task) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            int byTime = Long.compare(atNanos - other.atNanos, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Due> queue = new PriorityQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final ExecutorService pool;
    private final Thread sweeper;
    private volatile boolean closed;

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

    /** Runs {@code task} on the sweep thread at {@code atNanos} (System.nanoTime); it must not block. */
    void at(long atNanos, Runnable task) {
        Due due = new Due(atNanos, sequence.incrementAndGet(), task);
        lock.lock();
        try {
            queue.add(due);
            if (queue.peek() == due) {
                changed.signal();
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
                due = queue.peek();
                long wait = due == null ? TimeUnit.SECONDS.toNanos(1) : due.atNanos - System.nanoTime();
                if (wait > 0) {
                    changed.awaitNanos(wait);
                    continue;
                }
                queue.poll();
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
