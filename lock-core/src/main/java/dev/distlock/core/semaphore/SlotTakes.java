package dev.distlock.core.semaphore;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The zero-wait takes of one acquisition. Asks the server for slots without waiting and keeps grants in its {@link
 * TakenSlots} while fewer than wanted are held. On the caller's own thread a single slot is taken there, as an
 * interruptible call of the caller's. Otherwise every take is asynchronous.
 */
final class SlotTakes {

    private final LeasedSemaphore semaphore;
    private final Optional<Duration> leaseTime;
    private final boolean onCallersThread;
    private final LocalPermits local;
    private final TakenSlots slots;
    private boolean slotChecked;
    /** True while the acquisition tries slots before queueing. A held slot's note is checked once it queues. */
    private boolean passing;

    /** @param leaseTime the permits' fixed lease. Empty when the watchdog renews it */
    SlotTakes(
            LeasedSemaphore semaphore,
            Optional<Duration> leaseTime,
            boolean onCallersThread,
            LocalPermits local,
            TakenSlots slots) {
        this.semaphore = semaphore;
        this.leaseTime = leaseTime;
        this.onCallersThread = onCallersThread;
        this.local = local;
        this.slots = slots;
    }

    void passing(boolean passing) {
        this.passing = passing;
    }

    /** True when a single slot should be taken with {@link #tryGuarded}. */
    boolean guardsSingle(List<Integer> trying) {
        return trying.size() == 1 && onCallersThread && semaphore.guardsTakes();
    }

    /**
     * Tries {@code slots} at once, each with a zero wait, keeping grants while fewer than wanted are held and giving
     * back the rest. The first slot found held has its holder's permit count checked, once per acquisition.
     */
    void tryNow(List<Integer> slots) throws InterruptedException {
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
     * Tries one slot with a zero wait on the caller's thread, on the condition that nobody holds {@code
     * <name>:permit:waiting}, both checked in one step ({@link FencedLock#tryAcquireUnlessHeld}).
     *
     * @return false, having tried nothing, when the registry cannot check both in one step (it is not asked again)
     */
    boolean tryGuarded(int slot) throws InterruptedException {
        FencedLock lock = semaphore.lock(semaphore.slotKey(slot));
        local.claim(slot);
        Optional<LockHandle> granted;
        try {
            granted = lock.tryAcquireUnlessHeld(semaphore.waitingKey(), leaseTime.orElse(null));
        } catch (UnsupportedOperationException e) {
            local.unclaim(slot);
            semaphore.cannotGuardTakes();
            return false;
        } catch (RuntimeException e) {
            local.unclaim(slot);
            slots.failed(e);
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
            granted = leaseTime.isEmpty()
                    ? lock.tryAcquireDetached(Duration.ZERO)
                    : lock.tryAcquireDetached(Duration.ZERO, leaseTime.get());
        } catch (RuntimeException e) {
            local.unclaim(slot);
            slots.failed(e);
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
                    leaseTime.isEmpty()
                            ? lock.acquireAsync(Duration.ZERO)
                            : lock.acquireAsync(Duration.ZERO, leaseTime.get()));
        }
        return tries;
    }

    /** The answers of {@link #startTries}, as {@link #tryNow} says. Tries not collected are withdrawn. */
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
                    this.slots.failed(e.getCause());
                    continue;
                }
                claimed = i + 1;
                settle(slot, granted);
            }
        } finally {
            for (int j = claimed; j < tries.size(); j++) {
                local.unclaim(slots.get(j));
            }
            // From the try in hand when something was thrown. Closing a grant twice releases it once.
            for (; i < tries.size(); i++) {
                Attempts.withdraw(tries.get(i));
            }
        }
    }

    /**
     * Keeps a grant while fewer than wanted are held and gives it back otherwise. The first slot found held has its
     * holder's permit count checked, once per acquisition.
     */
    private void settle(int slot, Optional<LockHandle> granted) {
        if (granted.isEmpty() || slots.enough()) {
            local.unclaim(slot);
        }
        if (granted.isEmpty()) {
            if (!slotChecked && !passing) {
                slotChecked = true;
                semaphore.checkHolderOf(semaphore.slotKey(slot));
            }
        } else if (!slots.enough()) {
            slots.keep(slot, granted.get());
        } else {
            granted.get().close();
        }
    }
}
