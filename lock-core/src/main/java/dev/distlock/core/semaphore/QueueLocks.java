package dev.distlock.core.semaphore;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's two locks as one acquisition takes and releases them. The queue lock {@code <name>:permit:queue}, and
 * {@code <name>:permit:waiting}, held by the head of the queue while it waits for releases.
 */
final class QueueLocks {

    /** The category {@code docs/telemetry.md} lists for these messages. */
    private static final Logger log = LoggerFactory.getLogger(SemaphoreAcquisition.class);

    private final LeasedSemaphore semaphore;
    private final boolean zeroWait;
    private final boolean onCallersThread;
    private final long deadline;
    private final TakenSlots slots;

    /** @param deadline when the acquisition's wait ends, a {@link System#nanoTime()} */
    QueueLocks(LeasedSemaphore semaphore, boolean zeroWait, boolean onCallersThread, long deadline, TakenSlots slots) {
        this.semaphore = semaphore;
        this.zeroWait = zeroWait;
        this.onCallersThread = onCallersThread;
        this.deadline = deadline;
        this.slots = slots;
    }

    /**
     * The queue lock, or null when the wait ran out first. When the first try saw an acquisition waiting for
     * releases, its holder's note is checked and the wait starts at once. Else the queue is tried with a zero wait
     * first, whose passing failure the wait rides out (contract 8).
     */
    LockHandle enter(HolderRead waitingSeen) throws InterruptedException {
        FencedLock queue = semaphore.lock(semaphore.queueKey());
        if (waitingSeen.held()) {
            semaphore.checkHolder(semaphore.waitingKey(), waitingSeen.holder());
            long left = remaining();
            return left <= 0
                    ? null
                    : Attempts.join(queue.acquireAsync(Duration.ofNanos(left))).orElse(null);
        }
        try {
            Optional<LockHandle> entered = Attempts.join(queue.acquireAsync(Duration.ZERO));
            if (entered.isPresent()) {
                return entered.get();
            }
            semaphore.checkHolderOf(semaphore.queueKey());
        } catch (LockBackendException e) {
            if (zeroWait) {
                throw e;
            }
            slots.passingFailure(e);
        }
        long left = remaining();
        if (left <= 0) {
            if (slots.lastError() != null) {
                throw slots.lastError();
            }
            return null;
        }
        return Attempts.join(queue.acquireAsync(Duration.ofNanos(left))).orElse(null);
    }

    /**
     * A watchdog-leased hold of {@code <name>:permit:waiting} before the deadline, on this thread when it is the
     * caller's. Null when the wait ran out.
     */
    LockHandle takeWaiting() throws InterruptedException {
        long left = remaining();
        if (left <= 0) {
            return null;
        }
        FencedLock lock = semaphore.lock(semaphore.waitingKey());
        Duration wait = Duration.ofNanos(left);
        return (onCallersThread ? lock.tryAcquireDetached(wait) : Attempts.join(lock.acquireAsync(wait))).orElse(null);
    }

    void leaveWaiting(LockHandle waiting) {
        leave(waiting, semaphore.waitingKey());
    }

    void leaveQueue(LockHandle queue) {
        leave(queue, semaphore.queueKey());
    }

    private void leave(LockHandle hold, String key) {
        try {
            hold.close();
        } catch (RuntimeException e) {
            log.warn(
                    "Semaphore '{}' on {} could not release its lock '{}'; the next acquisition proceeds when its"
                            + " lease ends: {}",
                    semaphore.name(),
                    semaphore.backend(),
                    key,
                    e.getMessage());
        }
    }

    private long remaining() {
        return deadline - System.nanoTime();
    }
}
