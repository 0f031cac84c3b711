package dev.distlock.core.semaphore;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The waits of the acquisition that leads the queue, one per slot it lacks. Each is an asynchronous acquisition of
 * the slot's key ({@link FencedLock#acquireAsync}), which the backend wakes when the slot frees (no polling), and whose
 * grant is a permit. Grants are kept as they come. The rest are withdrawn when there are enough or the wait ends
 * (contract 12), so no thread of the caller's is interrupted in a backend call.
 */
final class SlotWaits {

    /** A wait that ended, granted or run out or failed. */
    record Ended(int slot, CompletableFuture<Optional<LockHandle>> attempt) {}

    private final LeasedSemaphore semaphore;
    private final Optional<Duration> leaseTime;
    private final BlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
    private final Map<Integer, CompletableFuture<Optional<LockHandle>>> pending = new HashMap<>();

    /** @param leaseTime the permits' fixed lease. Empty when the watchdog renews it */
    SlotWaits(LeasedSemaphore semaphore, Optional<Duration> leaseTime) {
        this.semaphore = semaphore;
        this.leaseTime = leaseTime;
    }

    /**
     * Waits for every slot {@code slots} lacks at once and keeps grants until there are enough.
     *
     * @return false when {@code deadline} (a {@link System#nanoTime()}) came first
     */
    boolean awaitEnough(TakenSlots slots, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        for (int slot = 0; slot < semaphore.permits(); slot++) {
            if (!slots.held(slot)) {
                start(slot, left);
            }
        }
        while (!slots.enough()) {
            Ended next = next(deadline);
            if (next == null) {
                return false;
            }
            Optional<LockHandle> granted;
            try {
                granted = next.attempt().join();
            } catch (RuntimeException e) {
                slots.failed(e.getCause() != null ? e.getCause() : e);
                continue;
            }
            if (granted.isPresent()) {
                slots.keepWaited(next.slot(), granted.get());
            }
        }
        return true;
    }

    /** Starts waiting for {@code slot}, at most {@code waitNanos}. */
    private void start(int slot, long waitNanos) {
        FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
        Duration wait = Duration.ofNanos(waitNanos);
        CompletableFuture<Optional<LockHandle>> attempt =
                leaseTime.isEmpty() ? lock.acquireAsync(wait) : lock.acquireAsync(wait, leaseTime.get());
        pending.put(slot, attempt);
        attempt.whenComplete((handle, failure) -> ended.add(new Ended(slot, attempt)));
    }

    /**
     * The next wait that ended, waiting for one until {@code deadline} (a {@link System#nanoTime()}). Null when none
     * did. It is no longer pending. Its grant is the caller's.
     */
    private Ended next(long deadline) throws InterruptedException {
        while (true) {
            Ended next = ended.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null || pending.remove(next.slot(), next.attempt())) {
                return next;
            }
            // Already withdrawn. Its grant, if any, was given back there.
        }
    }

    /** Withdraws every wait still pending. A grant that already came is given back. */
    void withdrawAll() {
        for (CompletableFuture<Optional<LockHandle>> wait : pending.values()) {
            Attempts.withdraw(wait);
        }
        pending.clear();
    }
}
