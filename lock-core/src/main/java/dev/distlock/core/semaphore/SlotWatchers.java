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
    private final List<Future<?>> started = new ArrayList<>();
    private int running;

    SlotWatchers(LeasedSemaphore semaphore, String threadName) {
        this.semaphore = semaphore;
        this.threadName = threadName;
    }

    /** Starts watching {@code slot} for at most {@code waitNanos}. */
    void watch(int slot, long waitNanos) {
        synchronized (this) {
            running++;
        }
        started.add(SemaphoreThreads.EXECUTOR.submit(() -> {
            String name = Thread.currentThread().getName();
            Thread.currentThread().setName(threadName);
            try {
                watchOnce(slot, waitNanos);
            } finally {
                Thread.currentThread().setName(name);
                synchronized (this) {
                    running--;
                    notifyAll();
                }
            }
        }));
    }

    /** The next report, waiting at most {@code nanos}; null when none came. */
    Event next(long nanos) throws InterruptedException {
        return events.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** Interrupts every watcher and waits (at most {@code limit}) until all have ended and released what they took. */
    void stop(Duration limit) {
        for (Future<?> watcher : started) {
            watcher.cancel(true);
        }
        long end = System.nanoTime() + limit.toNanos();
        synchronized (this) {
            long left;
            while (running > 0 && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
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
