package dev.distlock.core.semaphore;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of permits, on a thread of its own ({@link SemaphoreThreads}) so that the caller can be interrupted
 * or cancel without leaving anything held:
 *
 * <ol>
 *   <li>take the queue lock {@code <name>:queue} (thread-owned by this thread), waiting at most the wait time;
 *   <li>take free slots with zero-wait, handle-owned acquisitions, starting at a random slot;
 *   <li>if some are missing, wait for them holding the queue lock: {@link SlotWatchers} report slots that came free,
 *       and each is taken as a permit until there are enough;
 *   <li>stop the watchers and release the queue lock, then complete the caller's future.
 * </ol>
 *
 * All or nothing: when the wait runs out, the caller cancels or anything fails, every permit taken is given back.
 */
final class SemaphoreAcquisition implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(SemaphoreAcquisition.class);
    /** How long the queue lock waits, at most, for stopped watchers to give back what they took. */
    private static final Duration WATCHERS_STOP_LIMIT = Duration.ofSeconds(5);
    /** Slots a zero wait tries at once after its first try found too few free. */
    private static final int SWEEP = 8;

    private final LeasedSemaphore semaphore;
    private final int wanted;
    private final boolean zeroWait;
    private final Duration leaseTime;
    private final long deadline;
    private final CompletableFuture<Optional<Permits>> result = new CompletableFuture<>();
    private final List<Permit> taken = new ArrayList<>();
    private final boolean[] held;
    private boolean slotChecked;
    private RuntimeException lastError;

    /** The thread running this acquisition, interrupted when the caller cancels; guarded by {@code this}. */
    private Thread worker;

    private SemaphoreAcquisition(LeasedSemaphore semaphore, int wanted, Duration waitTime, Duration leaseTime) {
        this.semaphore = semaphore;
        this.wanted = wanted;
        this.zeroWait = waitTime.isZero();
        this.leaseTime = leaseTime;
        long now = System.nanoTime();
        // Saturates: a wait of centuries is a wait without end.
        this.deadline = now + Math.min(safeNanos(waitTime), Long.MAX_VALUE / 4);
        this.held = new boolean[semaphore.permits()];
    }

    static CompletableFuture<Optional<Permits>> start(
            LeasedSemaphore semaphore, int wanted, Duration waitTime, Duration leaseTime) {
        SemaphoreAcquisition acquisition = new SemaphoreAcquisition(semaphore, wanted, waitTime, leaseTime);
        acquisition.result.whenComplete((permits, failure) -> {
            if (acquisition.result.isCancelled()) {
                acquisition.interruptWorker();
            }
        });
        SemaphoreThreads.EXECUTOR.execute(acquisition);
        return acquisition.result;
    }

    @Override
    public void run() {
        Thread thread = Thread.currentThread();
        synchronized (this) {
            if (result.isDone()) {
                return; // cancelled before it started
            }
            worker = thread;
        }
        String name = thread.getName();
        thread.setName(threadName());
        try {
            acquire();
        } catch (Throwable e) {
            result.completeExceptionally(e);
        } finally {
            thread.setName(name);
            synchronized (this) {
                worker = null;
                Thread.interrupted(); // a cancellation's interrupt must not reach the thread's next task
            }
        }
    }

    private synchronized void interruptWorker() {
        if (worker != null) {
            worker.interrupt();
        }
    }

    private String threadName() {
        String name = semaphore.name();
        return "distlock-semaphore-" + (name.length() <= 60 ? name : name.substring(0, 60));
    }

    private void acquire() {
        LockHandle queue;
        try {
            queue = enterQueue();
        } catch (InterruptedException e) {
            result.completeExceptionally(e); // cancelled while queued (then this does nothing): nothing taken
            return;
        }
        if (queue == null) {
            result.complete(Optional.empty());
            return;
        }
        SlotWatchers watchers = new SlotWatchers(semaphore, threadName());
        Optional<Permits> permits = Optional.empty();
        Throwable failure = null;
        try {
            permits = takePermits(watchers);
        } catch (InterruptedException e) {
            giveBack();
            failure = e; // only a cancellation interrupts: completing does nothing then
        } catch (RuntimeException | Error e) {
            giveBack();
            failure = e;
        } finally {
            Thread.interrupted(); // a cancellation was acted on; what follows must run to its end
            // Before the caller hears: its next acquisition, from this instance or elsewhere, finds the queue free.
            watchers.stop(WATCHERS_STOP_LIMIT);
            leaveQueue(queue);
        }
        if (failure != null) {
            result.completeExceptionally(failure);
        } else if (!result.complete(permits)) {
            permits.ifPresent(Permits::close); // cancelled as they were granted
        }
    }

    /** The queue lock, or null when the wait ran out first. */
    private LockHandle enterQueue() throws InterruptedException {
        FencedLock queue = semaphore.lock(semaphore.queueKey());
        Optional<LockHandle> entered = queue.tryAcquire(Duration.ZERO);
        if (entered.isPresent()) {
            return entered.get();
        }
        semaphore.checkHolderOf(semaphore.queueKey());
        long left = remaining();
        if (left <= 0) {
            return null;
        }
        return queue.tryAcquire(Duration.ofNanos(left)).orElse(null);
    }

    private void leaveQueue(LockHandle queue) {
        try {
            queue.close();
        } catch (RuntimeException e) {
            log.warn(
                    "Semaphore '{}' on {} could not release its queue lock '{}'; the next acquisition proceeds when its"
                            + " lease ends: {}",
                    semaphore.name(),
                    semaphore.backend(),
                    semaphore.queueKey(),
                    e.getMessage());
        }
    }

    private Optional<Permits> takePermits(SlotWatchers watchers) throws InterruptedException {
        int permits = semaphore.permits();
        int first = ThreadLocalRandom.current().nextInt(permits);
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            slots.add((first + i) % permits);
        }
        tryNow(slots.subList(0, wanted));
        if (taken.size() == wanted) {
            return granted();
        }
        if (zeroWait) {
            for (int from = wanted; from < permits && taken.size() < wanted; from += SWEEP) {
                tryNow(slots.subList(from, Math.min(permits, from + SWEEP)));
            }
            return taken.size() == wanted ? granted() : notGranted();
        }
        return waitForSlots(watchers);
    }

    /** Holding the queue lock: waits for slots to come free until there are enough or the wait runs out. */
    private Optional<Permits> waitForSlots(SlotWatchers watchers) throws InterruptedException {
        long left = remaining();
        if (left <= 0) {
            return notGranted();
        }
        for (int slot = 0; slot < held.length; slot++) {
            if (!held[slot]) {
                watchers.watch(slot, left);
            }
        }
        while (taken.size() < wanted) {
            left = remaining();
            SlotWatchers.Event event = left <= 0 ? null : watchers.next(left);
            if (event == null) {
                return notGranted();
            }
            if (event.error() != null) {
                failed(event.error());
                continue;
            }
            int slot = event.slot();
            tryNow(List.of(slot));
            if (!held[slot] && (left = remaining()) > 0) {
                watchers.watch(slot, left); // taken again before this acquisition could: wait on
            }
        }
        return granted();
    }

    /**
     * Tries {@code slots} at once, each with a zero wait, keeping grants while fewer than wanted are held and giving
     * back the rest. The first slot found held has its holder's permit count checked, once per acquisition.
     */
    private void tryNow(List<Integer> slots) throws InterruptedException {
        List<CompletableFuture<Optional<LockHandle>>> tries = new ArrayList<>(slots.size());
        for (int slot : slots) {
            FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
            tries.add(
                    leaseTime == null ? lock.acquireAsync(Duration.ZERO) : lock.acquireAsync(Duration.ZERO, leaseTime));
        }
        int i = 0;
        try {
            for (; i < tries.size(); i++) {
                int slot = slots.get(i);
                Optional<LockHandle> granted;
                try {
                    granted = tries.get(i).get();
                } catch (ExecutionException e) {
                    failed(e.getCause());
                    continue;
                }
                if (granted.isEmpty()) {
                    if (!slotChecked) {
                        slotChecked = true;
                        semaphore.checkHolderOf(semaphore.slotKey(slot));
                    }
                } else if (taken.size() < wanted) {
                    held[slot] = true;
                    taken.add(new Permit(slot, granted.get()));
                } else {
                    granted.get().close();
                }
            }
        } finally {
            // From the try in hand when something was thrown: closing a grant twice releases it once.
            for (; i < tries.size(); i++) {
                abandon(tries.get(i));
            }
        }
    }

    /** Gives up a try whose outcome is not wanted any more: a grant that raced with the cancel is released. */
    private static void abandon(CompletableFuture<Optional<LockHandle>> attempt) {
        if (!attempt.cancel(false) && !attempt.isCompletedExceptionally()) {
            attempt.join().ifPresent(LockHandle::close);
        }
    }

    private void failed(Throwable error) {
        if (error instanceof IllegalStateException closed) {
            throw closed; // the registry was closed: nothing will come free
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        lastError = error instanceof RuntimeException runtime ? runtime : new IllegalStateException(error);
    }

    private Optional<Permits> granted() {
        taken.sort(Comparator.comparingInt(Permit::slot));
        Permits permits = new Permits(semaphore.name(), taken);
        taken.clear();
        return Optional.of(permits);
    }

    /** Not enough permits in time: gives back what was taken; a failure seen on the way is the answer. */
    private Optional<Permits> notGranted() {
        giveBack();
        if (lastError != null) {
            throw lastError;
        }
        return Optional.empty();
    }

    private void giveBack() {
        for (Permit permit : taken) {
            try {
                permit.close();
            } catch (RuntimeException e) {
                log.debug("Semaphore '{}': could not give back {}", semaphore.name(), permit, e);
            }
        }
        taken.clear();
    }

    private long remaining() {
        return deadline - System.nanoTime();
    }

    private static long safeNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
