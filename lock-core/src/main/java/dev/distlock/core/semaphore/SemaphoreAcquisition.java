package dev.distlock.core.semaphore;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of permits: on a thread of its own ({@link SemaphoreThreads}) for a caller that must not block, so
 * that it can cancel without leaving anything held; on the caller's own thread for a caller that waits for it anyway
 * ({@link #runHere}), whose interrupt is then the cancellation:
 *
 * <ol>
 *   <li>take {@code n} of this registry's local permits of the semaphore ({@link LocalPermits}), in arrival order;
 *   <li>try {@code n} free slots with zero waits while reading whether an acquisition waits for releases (holds the
 *       lock {@code <name>:permit:waiting}); all granted and nobody waiting: done, else every slot taken goes back ({@link
 *       #passQueue});
 *   <li>take the queue lock {@code <name>:permit:queue}, waiting at most the wait time;
 *   <li>take free slots with zero waits, starting at a random slot;
 *   <li>if some are missing, take {@code <name>:permit:waiting}, then wait for every slot it lacks at once ({@link
 *       SlotWaits}), and keep grants until there are enough;
 *   <li>abandon the waits it does not need, release {@code <name>:permit:waiting} and the queue, then complete the caller's
 *       future.
 * </ol>
 *
 * Every server call is a handle-owned acquisition, a release, or a read. On a thread of its own, each acquisition is
 * asynchronous ({@link FencedLock#acquireAsync}) and this thread waits for its future: a cancellation interrupts this
 * thread, never a backend call in progress, and contract 12 releases whatever an abandoned attempt takes. On the
 * caller's thread, a take of one slot runs on that thread ({@link FencedLock#tryAcquireDetached}), as an interruptible
 * call of the caller's own. All or nothing: when the wait runs out, the caller cancels or anything fails, every permit
 * taken is given back.
 */
final class SemaphoreAcquisition implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(SemaphoreAcquisition.class);
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
    /** True when the caller's own thread runs this acquisition ({@link #runHere}). */
    private boolean onCallersThread;
    /** True while {@link #passQueue} tries slots: a held slot's note is checked once the acquisition queues. */
    private boolean passing;
    /** What the first try read of {@code <name>:permit:waiting}: whether an acquisition at the head of the queue waits. */
    private LeasedSemaphore.HolderRead waitingSeen = LeasedSemaphore.HolderRead.UNKNOWN;

    private RuntimeException lastError;
    /** This registry's local permits of the semaphore, and how many of them this acquisition holds unhanded. */
    private LocalPermits local;

    private int localOwed;

    /** The thread running this acquisition, interrupted when the caller cancels; guarded by {@code this}. */
    private Thread worker;

    private SemaphoreAcquisition(LeasedSemaphore semaphore, int wanted, Duration waitTime, Duration leaseTime) {
        this.semaphore = semaphore;
        this.wanted = wanted;
        this.zeroWait = waitTime.isZero();
        this.leaseTime = leaseTime;
        // Saturates: a wait of centuries is a wait without end.
        this.deadline = System.nanoTime() + Math.min(nanos(waitTime), Long.MAX_VALUE / 4);
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

    /**
     * Runs an acquisition on the calling thread and returns its outcome. Its steps are the same as on a thread of its
     * own; the caller's interrupt does what a cancellation does there, and is thrown as {@link InterruptedException}.
     */
    static Optional<Permits> runHere(LeasedSemaphore semaphore, int wanted, Duration waitTime, Duration leaseTime)
            throws InterruptedException {
        SemaphoreAcquisition acquisition = new SemaphoreAcquisition(semaphore, wanted, waitTime, leaseTime);
        acquisition.onCallersThread = true;
        acquisition.acquire();
        try {
            return acquisition.result.getNow(Optional.empty());
        } catch (CompletionException e) {
            if (e.getCause() instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw unchecked(e.getCause());
        }
    }

    @Override
    public void run() {
        synchronized (this) {
            if (result.isDone()) {
                return; // cancelled before it started
            }
            worker = Thread.currentThread();
        }
        try {
            acquire();
        } catch (Throwable e) {
            result.completeExceptionally(e);
        } finally {
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

    /**
     * Takes the local permits first ({@link LocalPermits}), then the server's; local permits not handed to granted
     * permits are given back at the end.
     */
    private void acquire() {
        local = LocalPermits.use(semaphore);
        try {
            boolean mayAsk;
            try {
                mayAsk = local.take(wanted, zeroWait ? 0 : remaining());
            } catch (InterruptedException e) {
                result.completeExceptionally(e); // only a cancellation interrupts: completing does nothing then
                return;
            }
            if (!mayAsk) {
                result.complete(Optional.empty());
                return;
            }
            localOwed = wanted;
            acquireFromServer();
        } finally {
            local.give(localOwed);
            local.unuse();
        }
    }

    private void acquireFromServer() {
        Optional<Permits> passed;
        try {
            passed = passQueue();
        } catch (InterruptedException e) {
            giveBack();
            result.completeExceptionally(e); // only a cancellation interrupts: completing does nothing then
            return;
        } catch (RuntimeException | Error e) {
            giveBack();
            throw e;
        }
        if (passed.isPresent()) {
            if (!result.complete(passed)) {
                passed.get().close(); // cancelled as they were granted
            }
            return;
        }
        LockHandle queue;
        try {
            queue = enterQueue();
        } catch (InterruptedException e) {
            result.completeExceptionally(e); // only a cancellation interrupts: completing does nothing then
            return;
        }
        if (queue == null) {
            result.complete(Optional.empty());
            return;
        }
        SlotWaits waits = new SlotWaits(semaphore, leaseTime);
        Optional<Permits> permits = Optional.empty();
        Throwable failure = null;
        boolean interrupted = false;
        try {
            permits = takePermits(waits);
        } catch (InterruptedException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            failure = e;
        } finally {
            // A cancellation was acted on, or comes too late to be: the releases below run to their end anyway.
            interrupted = Thread.interrupted();
            waits.abandonAll();
            if (failure != null) {
                giveBack();
            }
            // Before the caller hears: its next acquisition, from this instance or elsewhere, finds the queue free.
            leaveQueue(queue);
        }
        if (interrupted && failure == null) {
            Thread.currentThread().interrupt(); // a caller's own thread keeps an interrupt that came after the grant
        }
        if (failure != null) {
            result.completeExceptionally(failure);
        } else if (!result.complete(permits)) {
            permits.ifPresent(Permits::close); // cancelled as they were granted
        }
    }

    /**
     * The way in when free permits are there for the taking, without taking the queue: sends a read of whether an
     * acquisition waits for releases (holds {@code <name>:permit:waiting}) and, meanwhile, tries {@code n} slots with zero
     * waits. The permits are kept only when every slot was granted and nobody waits; otherwise every slot taken goes
     * back, and the acquisition queues. So an acquisition that waits for releases is overtaken only by one that read
     * {@code <name>:permit:waiting} an instant before it was taken (which gives way at its next acquisition), while free
     * permits are taken at once even when others pass through the queue; an uncontended acquisition costs a read and
     * a take in one round trip where the registry sends the read without waiting for it ({@link
     * dev.distlock.core.LockRegistry#holderOfLater}; Redis), instead of three takes and a release (take the queue,
     * take slots, release the queue). A single slot tried on the caller's thread needs no read where the backend
     * checks {@code <name>:permit:waiting} in the take itself ({@link FencedLock#tryAcquireUnlessHeld}: Redis on one
     * server, memory): then only a refused take reads who waits.
     */
    private Optional<Permits> passQueue() throws InterruptedException {
        List<Integer> slots = local.slotsToTry();
        passing = true;
        try {
            // The first n slots, then, when some were held, the next few: a single free slot among many held ones is
            // found without queueing. Each try reads <name>:permit:waiting again beside it, unless the take itself
            // checks it
            // (a single slot on the caller's thread, where the backend can: tryGuarded).
            for (int from = 0, batch = wanted; ; from += batch, batch = Math.min(SWEEP, slots.size() - from)) {
                List<Integer> trying = slots.subList(from, from + batch);
                if (trying.size() == 1 && onCallersThread && semaphore.guardsTakes() && tryGuarded(trying.get(0))) {
                    // Granted only while nobody waited for releases; refused, it reads whether somebody does.
                    waitingSeen = taken.size() == wanted
                            ? LeasedSemaphore.HolderRead.NOBODY
                            : semaphore.readWaitingLater().get();
                } else {
                    Supplier<LeasedSemaphore.HolderRead> waiting = semaphore.readWaitingLater();
                    tryNow(trying);
                    waitingSeen = waiting.get();
                }
                if (!waitingSeen.free()) {
                    break;
                }
                if (taken.size() == wanted) {
                    return granted();
                }
                if (from > 0 || from + batch >= slots.size()) {
                    break;
                }
            }
        } finally {
            passing = false;
        }
        giveBack();
        return Optional.empty();
    }

    /**
     * The queue lock, or null when the wait ran out first. When the first try found an acquisition waiting for
     * releases, its holder's note is checked and the wait for the queue starts at once; else the queue is tried with a
     * zero wait first.
     */
    private LockHandle enterQueue() throws InterruptedException {
        FencedLock queue = semaphore.lock(semaphore.queueKey());
        if (waitingSeen.held()) {
            semaphore.checkHolder(semaphore.waitingKey(), waitingSeen.holder());
            long left = remaining();
            return left <= 0
                    ? null
                    : join(queue.acquireAsync(Duration.ofNanos(left))).orElse(null);
        }
        try {
            Optional<LockHandle> entered = join(queue.acquireAsync(Duration.ZERO));
            if (entered.isPresent()) {
                return entered.get();
            }
            semaphore.checkHolderOf(semaphore.queueKey());
        } catch (LockBackendException e) {
            if (zeroWait) {
                throw e;
            }
            // A passing failure of the first try (a slow answer, say): the waiting take below rides it out while
            // the wait lasts, as a lock's wait does (contract 8).
            lastError = e;
        }
        long left = remaining();
        if (left <= 0) {
            if (lastError != null) {
                throw lastError;
            }
            return null;
        }
        return join(queue.acquireAsync(Duration.ofNanos(left))).orElse(null);
    }

    /**
     * The outcome of an asynchronous acquisition; when this thread is interrupted meanwhile, the acquisition is
     * abandoned (a grant is given back) and the interrupt thrown.
     */
    private static Optional<LockHandle> join(CompletableFuture<Optional<LockHandle>> attempt)
            throws InterruptedException {
        try {
            return attempt.get();
        } catch (InterruptedException e) {
            SlotWaits.abandon(attempt);
            throw e;
        } catch (ExecutionException e) {
            throw unchecked(e.getCause());
        }
    }

    /** Throws {@code cause} when it is unchecked; otherwise returns it wrapped, for the caller to throw. */
    private static RuntimeException unchecked(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }

    private void leaveQueue(LockHandle queue) {
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

    private Optional<Permits> takePermits(SlotWaits waits) throws InterruptedException {
        int permits = semaphore.permits();
        List<Integer> slots = local.slotsToTry();
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
        return waitForSlots(waits);
    }

    /**
     * Holding the queue: takes {@code <name>:permit:waiting}, so that no acquisition that passes the queue keeps a permit
     * meanwhile, then waits for every slot it lacks at once and keeps grants until there are enough.
     */
    private Optional<Permits> waitForSlots(SlotWaits waits) throws InterruptedException {
        long left = remaining();
        if (left <= 0) {
            return notGranted();
        }
        LockHandle waiting = take(semaphore.lock(semaphore.waitingKey()), left);
        if (waiting == null) {
            return notGranted();
        }
        try {
            return waitHolding(waits);
        } finally {
            leave(waiting, semaphore.waitingKey());
        }
    }

    /** A watchdog-leased hold of {@code lock} within {@code waitNanos}, on this thread when it is the caller's. */
    private LockHandle take(FencedLock lock, long waitNanos) throws InterruptedException {
        Duration wait = Duration.ofNanos(waitNanos);
        return (onCallersThread ? lock.tryAcquireDetached(wait) : join(lock.acquireAsync(wait))).orElse(null);
    }

    private Optional<Permits> waitHolding(SlotWaits waits) throws InterruptedException {
        long left = remaining();
        if (left <= 0) {
            return notGranted();
        }
        for (int slot = 0; slot < held.length; slot++) {
            if (!held[slot]) {
                waits.start(slot, left);
            }
        }
        while (taken.size() < wanted) {
            SlotWaits.Ended ended = waits.next(deadline);
            if (ended == null) {
                return notGranted();
            }
            Optional<LockHandle> granted;
            try {
                granted = ended.attempt().join();
            } catch (RuntimeException e) {
                failed(e.getCause() != null ? e.getCause() : e);
                continue;
            }
            if (granted.isPresent()) {
                local.claim(ended.slot());
                held[ended.slot()] = true;
                taken.add(new Permit(ended.slot(), granted.get()));
            }
        }
        return granted();
    }

    /**
     * Tries {@code slots} at once, each with a zero wait, keeping grants while fewer than wanted are held and giving
     * back the rest. The first slot found held has its holder's permit count checked, once per acquisition.
     */
    private void tryNow(List<Integer> slots) throws InterruptedException {
        for (int slot : slots) {
            local.claim(slot);
        }
        if (onCallersThread && slots.size() == 1) {
            takeHere(slots.get(0));
        } else {
            collect(slots, startTries(slots));
        }
    }

    /**
     * Tries one slot with a zero wait on this thread, which is the caller's own, on the condition that nobody holds
     * {@code <name>:permit:waiting}: the server checks both in one step ({@link FencedLock#tryAcquireUnlessHeld}).
     *
     * @return false, having tried nothing, when the registry cannot check both in one step (it is not asked again)
     */
    private boolean tryGuarded(int slot) throws InterruptedException {
        FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
        local.claim(slot);
        Optional<LockHandle> granted;
        try {
            granted = lock.tryAcquireUnlessHeld(semaphore.waitingKey(), leaseTime);
        } catch (UnsupportedOperationException e) {
            local.unclaim(slot);
            semaphore.cannotGuardTakes();
            return false;
        } catch (RuntimeException e) {
            local.unclaim(slot);
            failed(e);
            return true;
        }
        settle(slot, granted);
        return true;
    }

    /** Tries one slot with a zero wait on this thread, which is the caller's own. */
    private void takeHere(int slot) throws InterruptedException {
        FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
        Optional<LockHandle> granted;
        try {
            granted = leaseTime == null
                    ? lock.tryAcquireDetached(Duration.ZERO)
                    : lock.tryAcquireDetached(Duration.ZERO, leaseTime);
        } catch (RuntimeException e) {
            local.unclaim(slot);
            failed(e);
            return;
        }
        settle(slot, granted);
    }

    /** Asks for {@code slots} at once, each with a zero wait. */
    private List<CompletableFuture<Optional<LockHandle>>> startTries(List<Integer> slots) {
        List<CompletableFuture<Optional<LockHandle>>> tries = new ArrayList<>(slots.size());
        for (int slot : slots) {
            FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
            tries.add(
                    leaseTime == null ? lock.acquireAsync(Duration.ZERO) : lock.acquireAsync(Duration.ZERO, leaseTime));
        }
        return tries;
    }

    /** The answers of {@link #startTries}, as {@link #tryNow} says. */
    private void collect(List<Integer> slots, List<CompletableFuture<Optional<LockHandle>>> tries)
            throws InterruptedException {
        int i = 0;
        int claimed = 0; // the first try whose slot this acquisition still counts as tried
        try {
            for (; i < tries.size(); i++) {
                int slot = slots.get(i);
                Optional<LockHandle> granted;
                try {
                    granted = tries.get(i).get();
                } catch (ExecutionException e) {
                    claimed = i + 1;
                    local.unclaim(slot);
                    failed(e.getCause());
                    continue;
                }
                claimed = i + 1;
                settle(slot, granted);
            }
        } finally {
            for (int j = claimed; j < tries.size(); j++) {
                local.unclaim(slots.get(j));
            }
            // From the try in hand when something was thrown: closing a grant twice releases it once.
            for (; i < tries.size(); i++) {
                SlotWaits.abandon(tries.get(i));
            }
        }
    }

    /**
     * Keeps a grant while fewer than wanted are held and gives it back otherwise; the first slot found held has its
     * holder's permit count checked, once per acquisition.
     */
    private void settle(int slot, Optional<LockHandle> granted) {
        if (granted.isEmpty() || taken.size() >= wanted) {
            local.unclaim(slot);
        }
        if (granted.isEmpty()) {
            if (!slotChecked && !passing) {
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
        // Each granted permit gives its local permit back when it ends (given back or lost).
        local.permitsGranted(taken.size());
        localOwed -= taken.size();
        for (Permit permit : taken) {
            permit.endsWith(() -> local.permitEnded(permit.slot()));
        }
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
            held[permit.slot()] = false;
            local.unclaim(permit.slot());
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

    private static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
