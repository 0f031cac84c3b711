package dev.distlock.core.semaphore;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Waits, for the one acquisition that leads the queue, until held slots come free. Each watcher is a thread that
 * waits for one slot's key as any waiter of that lock does (the backend wakes it: no polling), and when granted
 * releases it at once and reports the slot; the acquisition then takes the slot as a permit of its own. A watcher is
 * stopped by an interrupt, which every backend ends promptly, leaving nothing held or queued (contract 6), so no
 * abandoned attempt outlives the acquisition.
 */
final class SlotWatchers {

    /** What a watcher reports: its slot came free, or its wait failed. */
    record Event(int slot, RuntimeException error) {}

    private final LeasedSemaphore semaphore;
    private final String threadName;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Watcher> started = new ArrayList<>();

    /** One watcher's task: it runs at most once, and not at all when stopped before it started. */
    private final class Watcher implements Runnable {

        private static final int NEW = 0;
        private static final int RUNNING = 1;
        private static final int ENDED = 2;

        private final int slot;
        private final long waitNanos;
        private final AtomicInteger state = new AtomicInteger(NEW);
        private Future<?> future;

        Watcher(int slot, long waitNanos) {
            this.slot = slot;
            this.waitNanos = waitNanos;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(NEW, RUNNING)) {
                return;
            }
            Thread thread = Thread.currentThread();
            String name = thread.getName();
            thread.setName(threadName);
            try {
                watchOnce(slot, waitNanos);
            } finally {
                thread.setName(name);
                synchronized (this) {
                    state.set(ENDED);
                    notifyAll();
                }
            }
        }

        /** Interrupts this watcher, or keeps it from starting. */
        void interrupt() {
            if (state.compareAndSet(NEW, ENDED)) {
                future.cancel(false);
            } else {
                future.cancel(true);
            }
        }

        /** Waits until this watcher ended; false when it still runs at {@code end} (a {@link System#nanoTime()}). */
        synchronized boolean awaitEnd(long end) {
            long left;
            while (state.get() != ENDED && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return state.get() == ENDED;
        }
    }

    SlotWatchers(LeasedSemaphore semaphore, String threadName) {
        this.semaphore = semaphore;
        this.threadName = threadName;
    }

    /** Starts watching {@code slot} for at most {@code waitNanos}. */
    void watch(int slot, long waitNanos) {
        Watcher watcher = new Watcher(slot, waitNanos);
        started.add(watcher);
        watcher.future = SemaphoreThreads.EXECUTOR.submit(watcher);
    }

    /** The next report, waiting at most {@code nanos}; null when none came. */
    Event next(long nanos) throws InterruptedException {
        return events.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Interrupts every watcher and waits (at most {@code limit} in all) until each has ended and released what it
     * took; a watcher not started yet never starts.
     */
    void stop(Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        for (Watcher watcher : started) {
            watcher.interrupt();
        }
        for (Watcher watcher : started) {
            if (!watcher.awaitEnd(end)) {
                return;
            }
        }
    }

    private void watchOnce(int slot, long waitNanos) {
        Optional<LockHandle> granted;
        try {
            granted = semaphore.lock(semaphore.slotKey(slot)).tryAcquire(Duration.ofNanos(waitNanos));
        } catch (InterruptedException e) {
            return; // stopped: the wait left nothing behind
        } catch (RuntimeException e) {
            events.add(new Event(slot, e));
            return;
        }
        if (granted.isEmpty()) {
            return; // the wait ran out; so does the acquisition's
        }
        try {
            granted.get().close();
        } catch (RuntimeException e) {
            // The local hold is gone; the acquisition's own take finds out whether the server let the key go.
            events.add(new Event(slot, e));
        }
        events.add(new Event(slot, null));
    }
}
