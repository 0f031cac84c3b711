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
 * The waits of the acquisition that leads the queue, one per slot it lacks: each is an asynchronous acquisition of
 * the slot's key ({@link FencedLock#acquireAsync}), which the backend wakes when the slot frees (no polling), and whose
 * grant is a permit. The acquisition takes grants as they come; when it has enough, or gives up, it abandons the
 * rest: as contract 12 says, an abandoned attempt goes on until it is granted, then releases at once, or until its
 * wait runs out. No thread of the caller's is interrupted in a backend call.
 */
final class SlotWaits {

    /** A wait that ended: granted, or its wait ran out, or failed. */
    record Ended(int slot, CompletableFuture<Optional<LockHandle>> attempt) {}

    private final LeasedSemaphore semaphore;
    private final Duration leaseTime;
    private final BlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
    private final Map<Integer, CompletableFuture<Optional<LockHandle>>> pending = new HashMap<>();

    /** @param leaseTime the permits' fixed lease, or null for the watchdog */
    SlotWaits(LeasedSemaphore semaphore, Duration leaseTime) {
        this.semaphore = semaphore;
        this.leaseTime = leaseTime;
    }

    /** Starts waiting for {@code slot}, at most {@code waitNanos}. */
    void start(int slot, long waitNanos) {
        FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
        Duration wait = Duration.ofNanos(waitNanos);
        CompletableFuture<Optional<LockHandle>> attempt =
                leaseTime == null ? lock.acquireAsync(wait) : lock.acquireAsync(wait, leaseTime);
        pending.put(slot, attempt);
        attempt.whenComplete((handle, failure) -> ended.add(new Ended(slot, attempt)));
    }

    /**
     * The next wait that ended, waiting for one until {@code deadline} (a {@link System#nanoTime()}); null when none
     * did. It is no longer pending: its grant is the caller's.
     */
    Ended next(long deadline) throws InterruptedException {
        while (true) {
            Ended next = ended.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null || pending.remove(next.slot(), next.attempt())) {
                return next;
            }
            // Already abandoned: its grant, if any, was given back there.
        }
    }

    /** Abandons every wait still pending; a grant that already came is given back. */
    void abandonAll() {
        for (CompletableFuture<Optional<LockHandle>> wait : pending.values()) {
            abandon(wait);
        }
        pending.clear();
    }

    /** Gives up {@code attempt}: cancelled when pending (contract 12 releases a late grant), given back when granted. */
    static void abandon(CompletableFuture<Optional<LockHandle>> attempt) {
        if (!attempt.cancel(false) && !attempt.isCompletedExceptionally()) {
            attempt.join().ifPresent(LockHandle::close);
        }
    }
}
