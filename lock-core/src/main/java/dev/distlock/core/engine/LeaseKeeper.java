package dev.distlock.core.engine;

import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs the timed work of leases. One sweep thread takes due jobs from a time-ordered queue and hands
 * backend calls to a pool, so a slow renewal never delays another hold's. A hold has at most one job
 * of each {@link Job} kind. Why a first job stays on its hold is in {@code docs/internals/engine.md}.
 */
final class LeaseKeeper implements AutoCloseable {

    /** The kinds of work a hold has queued, at most one of each. */
    enum Job {
        /** The next renewal, or the end of a fixed lease or of a minimum hold. */
        TIMER,
        /** The check that the lease (or a fixed lease's session bound) has not run out without a confirmation. */
        LEASE_END,
        /** The next confirmation of a fixed lease's session, on session backends. */
        CONFIRMATION
    }

    /** A piece of work due at {@code atNanos}. Its task runs on the sweep thread and must be quick. */
    record Due(long atNanos, long sequence, Runnable task) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            int byTime = Long.compare(atNanos - other.atNanos, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /** A hold's first job, kept on its {@link Schedule} until the sweep thread queues it (see {@link #atFirst}). */
    record Arrival(Job job, long atNanos, Runnable task) {}

    /** The keeper's bookkeeping for one hold, which only the keeper reads or writes. */
    static final class Schedule {
        /** What is queued, one per kind, guarded by the keeper's lock. */
        private final Due[] dues = new Due[Job.values().length];
        /** The first job until the keeper queues it, else null. */
        private volatile Arrival arrival;
        /** True once the keeper may have queued jobs. */
        private volatile boolean queued;

        /** Whether the keeper may hold work for this hold (tests). */
        boolean isEmpty() {
            return arrival == null && !queued;
        }
    }

    /** The longest the sweep thread sleeps. */
    private static final long LONGEST_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final AtomicReferenceFieldUpdater<Schedule, Arrival> ARRIVAL =
            AtomicReferenceFieldUpdater.newUpdater(Schedule.class, Arrival.class, "arrival");

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final TreeSet<Due> queue = new TreeSet<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Iterable<Schedule> live;
    /** No first job still on its hold is due before this nanoTime. Each look resets it. */
    private final AtomicLong arrivalsDueFrom = new AtomicLong(System.nanoTime() + LONGEST_SLEEP_NANOS);

    private final ExecutorService pool;
    private final Thread sweeper;
    private volatile boolean closed;
    /** When the sleeping sweep thread wakes on its own, or while it runs, when it woke. Written under the lock. */
    private volatile long sweepWakesAt;

    /** @param live the schedules of the engine's live holds, each among them before its {@link #atFirst} */
    LeaseKeeper(String backend, Iterable<Schedule> live) {
        this.live = live;
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

    /** Runs a task that must not block on the sweep thread at {@code atNanos}, replacing the hold's {@code job}. */
    void at(Schedule hold, Job job, long atNanos, Runnable task) {
        lock.lock();
        try {
            Arrival arriving = hold.arrival;
            if (arriving != null && arriving.job == job) {
                ARRIVAL.compareAndSet(hold, arriving, null); // replaced before it arrived
            }
            queue(hold, job, atNanos, task);
            // Wake the sweep thread only when it would otherwise sleep past the new job.
            if (atNanos - sweepWakesAt < 0) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Like {@link #at}, for a live hold with nothing queued yet. It takes no lock. The sweep thread queues the job
     * at its next look, before the job is due.
     */
    void atFirst(Schedule hold, Job job, long atNanos, Runnable task) {
        hold.arrival = new Arrival(job, atNanos, task);
        long dueFrom = arrivalsDueFrom.get();
        while (atNanos - dueFrom < 0 && !arrivalsDueFrom.compareAndSet(dueFrom, atNanos)) {
            dueFrom = arrivalsDueFrom.get();
        }
        // The sweep thread publishes its wake time before it reads arrivalsDueFrom, so one side sees the other.
        if (atNanos - sweepWakesAt < 0) {
            lock.lock();
            try {
                changed.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Queues the task as the hold's {@code job}, replacing the one queued before. Called under the lock. */
    private void queue(Schedule hold, Job job, long atNanos, Runnable task) {
        hold.queued = true;
        Due due = new Due(atNanos, sequence.incrementAndGet(), task);
        Due replaced = hold.dues[job.ordinal()];
        if (replaced != null) {
            queue.remove(replaced);
        }
        hold.dues[job.ordinal()] = due;
        queue.add(due);
    }

    /** Queues the first jobs still on the live holds. Called under the lock. */
    private void moveArrivals(long now) {
        arrivalsDueFrom.set(now + LONGEST_SLEEP_NANOS);
        for (Schedule hold : live) {
            Arrival arrival = hold.arrival;
            if (arrival == null) {
                continue;
            }
            // Marked before the claim, so a forget() that finds the job claimed also takes the lock.
            hold.queued = true;
            if (ARRIVAL.compareAndSet(hold, arrival, null)) {
                queue(hold, arrival.job, arrival.atNanos, arrival.task);
            }
        }
    }

    /** Takes out everything {@code hold} has queued. */
    void forget(Schedule hold) {
        hold.arrival = null;
        if (!hold.queued) {
            return; // the first job was still on the hold
        }
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

    /** Runs calls to the backend and owners' callbacks on a pool thread now. */
    void run(Runnable task) {
        if (!closed) {
            try {
                pool.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // Closing. Nothing is kept any more.
            }
        }
    }

    private void sweep() {
        while (!closed) {
            Due due;
            lock.lock();
            try {
                long now = System.nanoTime();
                if (arrivalsDueFrom.get() - now <= 0) {
                    // A first job is due, or a second has passed since the last look.
                    moveArrivals(now);
                }
                due = queue.isEmpty() ? null : queue.first();
                long wakeAt = due == null || due.atNanos - (now + LONGEST_SLEEP_NANOS) > 0
                        ? now + LONGEST_SLEEP_NANOS
                        : due.atNanos;
                if (wakeAt - now > 0) {
                    sweepWakesAt = wakeAt;
                    long arrivalDue = arrivalsDueFrom.get();
                    if (arrivalDue - wakeAt < 0) {
                        wakeAt = arrivalDue;
                    }
                    if (wakeAt - now > 0) {
                        changed.awaitNanos(wakeAt - now);
                    }
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
