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
 * Keeps leases: one sweep thread takes due work from a queue ordered by time (renewals, checks
 * of a lease's end, ends of fixed leases) and hands calls to the backend to a pool, so a slow
 * renewal never delays another hold's. Each hold has at most one job of each {@link Job} kind; a new
 * job replaces the old one of its kind, and a hold that ends takes its jobs out, so the queue
 * holds only live holds' work.
 *
 * <p>A hold's first job ({@link #atFirst}) stays on the hold itself: the sweep thread looks
 * through the live holds once a second, and when a first job is due, and moves the first
 * jobs it finds into the queue. Most holds end long before their first renewal is
 * due; taking and ending those writes nothing that other threads share, and takes no lock.
 */
final class LeaseKeeper implements AutoCloseable {

    /** The kinds of work a hold has queued: at most one of each. */
    enum Job {
        /** The next renewal, or the end of a fixed lease or of a minimum hold. */
        TIMER,
        /** The check that the lease (or a fixed lease's session bound) has not run out without a confirmation. */
        LEASE_END,
        /** The next confirmation of a fixed lease's session, on session backends. */
        CONFIRMATION
    }

    /** A piece of work due at {@code atNanos}; {@code task} runs on the sweep thread and must be quick. */
    record Due(long atNanos, long sequence, Runnable task) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            int byTime = Long.compare(atNanos - other.atNanos, 0);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /** A hold's first job, kept on its {@link Schedule} until the sweep thread queues it (see {@link #atFirst}). */
    record Arrival(Job job, long atNanos, Runnable task) {}

    /**
     * The keeper's bookkeeping for one hold: what it has queued, one per kind, and the first
     * job until the sweep thread queues it. Each hold carries one; only the keeper reads or writes it.
     */
    static final class Schedule {
        /** What is queued, one per kind; guarded by the keeper's lock. */
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
    /** No first job still on its hold is due before this (System.nanoTime); reset by each look. */
    private final AtomicLong arrivalsDueFrom = new AtomicLong(System.nanoTime() + LONGEST_SLEEP_NANOS);

    private final ExecutorService pool;
    private final Thread sweeper;
    private volatile boolean closed;
    /**
     * When the sleeping sweep thread wakes on its own; written under {@code lock}, read without it
     * by {@link #atFirst}. While the thread runs, the time it woke.
     */
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

    /**
     * Runs {@code task} on the sweep thread at {@code atNanos} (System.nanoTime), in place of what
     * {@code hold} had queued in {@code job}; the task must not block.
     */
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
     * Like {@link #at}, for a hold that has nothing queued yet and is among the live holds,
     * without taking the lock or writing anything shared: the job goes into the queue when
     * the sweep thread next looks through the holds, which is before it is due.
     */
    void atFirst(Schedule hold, Job job, long atNanos, Runnable task) {
        hold.arrival = new Arrival(job, atNanos, task);
        long dueFrom = arrivalsDueFrom.get();
        while (atNanos - dueFrom < 0 && !arrivalsDueFrom.compareAndSet(dueFrom, atNanos)) {
            dueFrom = arrivalsDueFrom.get();
        }
        // The sweep thread publishes when it will wake before it reads arrivalsDueFrom: either it
        // sees this job's time, or this sees the time it sleeps until.
        if (atNanos - sweepWakesAt < 0) {
            lock.lock();
            try {
                changed.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Queues {@code task} as {@code hold}'s {@code job}, replacing the one queued before; under {@code lock}. */
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

    /** Queues the first jobs still on the live holds; under {@code lock}. */
    private void moveArrivals(long now) {
        arrivalsDueFrom.set(now + LONGEST_SLEEP_NANOS);
        for (Schedule hold : live) {
            Arrival arrival = hold.arrival;
            if (arrival == null) {
                continue;
            }
            // Marked queued before the job is claimed: a forget() that finds the job claimed
            // finds the mark too, and takes the lock to remove what this queues.
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
            return; // nothing was queued: the first job was still on the hold
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
