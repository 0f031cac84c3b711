package dev.distlock.core.semaphore;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * One acquisition of permits, all or nothing. Takes local permits ({@link LocalPermits}), tries free slots without
 * queueing ({@link #passQueue}), else takes the queue ({@link QueueLocks}) and, at its head, waits for the slots it
 * lacks ({@link SlotWaits}). It runs on a thread of its own ({@link SemaphoreThreads}), where a cancellation
 * interrupts it, or on the caller's ({@link #runHere}), where the caller's interrupt does. Steps and reasons: {@code
 * docs/internals/recipes.md}.
 */
final class SemaphoreAcquisition implements Runnable {

    /** Slots a zero wait tries at once after its first try found too few free. */
    private static final int SWEEP = 8;

    private final LeasedSemaphore semaphore;
    private final int wanted;
    private final boolean zeroWait;
    /** The permits' fixed lease. Empty when the watchdog renews it. */
    private final Optional<Duration> leaseTime;

    private final long deadline;
    private final CompletableFuture<Optional<Permits>> result = new CompletableFuture<>();
    /** True when the caller's own thread runs this acquisition ({@link #runHere}). */
    private boolean onCallersThread;
    /** Whether the first try saw an acquisition at the head of the queue waiting ({@code <name>:permit:waiting}). */
    private HolderRead waitingSeen = HolderRead.UNKNOWN;

    /** This registry's local permits of the semaphore. */
    private LocalPermits local;

    private TakenSlots slots;
    private SlotTakes takes;
    private QueueLocks queueLocks;

    /** The thread running this acquisition, interrupted when the caller cancels. Guarded by {@code this}. */
    private Thread worker;

    private SemaphoreAcquisition(
            LeasedSemaphore semaphore, int wanted, Duration waitTime, Optional<Duration> leaseTime) {
        this.semaphore = semaphore;
        this.wanted = wanted;
        this.zeroWait = waitTime.isZero();
        this.leaseTime = leaseTime;
        // Saturates. A wait of centuries is a wait without end.
        this.deadline = System.nanoTime() + Math.min(nanos(waitTime), Long.MAX_VALUE / 4);
    }

    static CompletableFuture<Optional<Permits>> start(
            LeasedSemaphore semaphore, int wanted, Duration waitTime, Optional<Duration> leaseTime) {
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
     * own. The caller's interrupt does what a cancellation does there, and is thrown as {@link InterruptedException}.
     */
    static Optional<Permits> runHere(
            LeasedSemaphore semaphore, int wanted, Duration waitTime, Optional<Duration> leaseTime)
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
            throw Attempts.unchecked(e.getCause());
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

    /** Takes the local permits first, then the server's. Local permits not handed to granted permits go back. */
    private void acquire() {
        local = LocalPermits.use(semaphore);
        try {
            boolean mayAsk;
            try {
                mayAsk = local.take(wanted, zeroWait ? 0 : remaining());
            } catch (InterruptedException e) {
                result.completeExceptionally(e); // only a cancellation interrupts, so completing does nothing then
                return;
            }
            if (!mayAsk) {
                result.complete(Optional.empty());
                return;
            }
            slots = new TakenSlots(semaphore, wanted, local);
            takes = new SlotTakes(semaphore, leaseTime, onCallersThread, local, slots);
            queueLocks = new QueueLocks(semaphore, zeroWait, onCallersThread, deadline, slots);
            acquireFromServer();
        } finally {
            local.give(slots == null ? 0 : slots.localOwed());
            local.unuse();
        }
    }

    private void acquireFromServer() {
        Optional<Permits> passed;
        try {
            passed = passQueue();
        } catch (InterruptedException e) {
            slots.giveBack();
            result.completeExceptionally(e); // only a cancellation interrupts, so completing does nothing then
            return;
        } catch (RuntimeException | Error e) {
            slots.giveBack();
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
            queue = queueLocks.enter(waitingSeen);
        } catch (InterruptedException e) {
            result.completeExceptionally(e); // only a cancellation interrupts, so completing does nothing then
            return;
        }
        if (queue == null) {
            result.complete(Optional.empty());
            return;
        }
        acquireInQueue(queue);
    }

    /** Holding the queue. Takes the permits, leaves the queue before the caller hears, and completes its future. */
    private void acquireInQueue(LockHandle queue) {
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
            // A cancellation was acted on, or comes too late to be. The releases below run to their end anyway.
            interrupted = Thread.interrupted();
            waits.withdrawAll();
            if (failure != null) {
                slots.giveBack();
            }
            queueLocks.leaveQueue(queue);
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
     * Tries free slots without taking the queue, reading {@code <name>:permit:waiting} beside each try. The first
     * {@code n} slots, then a few more when some were held. The permits are kept only when all were granted and
     * nobody waits for releases. Otherwise every slot taken goes back and the acquisition queues.
     */
    private Optional<Permits> passQueue() throws InterruptedException {
        List<Integer> order = local.slotsToTry();
        takes.passing(true);
        try {
            for (int from = 0, batch = wanted; ; from += batch, batch = Math.min(SWEEP, order.size() - from)) {
                List<Integer> trying = order.subList(from, from + batch);
                if (takes.guardsSingle(trying) && takes.tryGuarded(trying.get(0))) {
                    // Granted only while nobody waited for releases. Refused, it reads whether somebody does.
                    waitingSeen = slots.enough()
                            ? HolderRead.NOBODY
                            : semaphore.readWaitingLater().get();
                } else {
                    Supplier<HolderRead> waiting = semaphore.readWaitingLater();
                    takes.tryNow(trying);
                    waitingSeen = waiting.get();
                }
                if (!waitingSeen.free()) {
                    break;
                }
                if (slots.enough()) {
                    return slots.granted();
                }
                if (from > 0 || from + batch >= order.size()) {
                    break;
                }
            }
        } finally {
            takes.passing(false);
        }
        slots.giveBack();
        return Optional.empty();
    }

    /** Holding the queue. Free slots first, then (unless the wait is zero) a wait for the slots still lacking. */
    private Optional<Permits> takePermits(SlotWaits waits) throws InterruptedException {
        int permits = semaphore.permits();
        List<Integer> order = local.slotsToTry();
        takes.tryNow(order.subList(0, wanted));
        if (slots.enough()) {
            return slots.granted();
        }
        if (zeroWait) {
            for (int from = wanted; from < permits && !slots.enough(); from += SWEEP) {
                takes.tryNow(order.subList(from, Math.min(permits, from + SWEEP)));
            }
            return slots.enough() ? slots.granted() : slots.notGranted();
        }
        return waitForSlots(waits);
    }

    /**
     * Takes {@code <name>:permit:waiting}, so that no acquisition that passes the queue keeps a permit meanwhile, then
     * waits for every slot it lacks at once.
     */
    private Optional<Permits> waitForSlots(SlotWaits waits) throws InterruptedException {
        LockHandle waiting = queueLocks.takeWaiting();
        if (waiting == null) {
            return slots.notGranted();
        }
        try {
            return waits.awaitEnough(slots, deadline) ? slots.granted() : slots.notGranted();
        } finally {
            queueLocks.leaveWaiting(waiting);
        }
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
