package dev.distlock.core.semaphore;

import dev.distlock.core.LockHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slots one acquisition holds so far. Kept until there are enough, then handed to the caller as {@link Permits}
 * or given back, all or nothing.
 */
final class TakenSlots {

    /** The category {@code docs/telemetry.md} lists for these messages. */
    private static final Logger log = LoggerFactory.getLogger(SemaphoreAcquisition.class);

    private final LeasedSemaphore semaphore;
    private final int wanted;
    private final LocalPermits local;
    private final List<Permit> taken = new ArrayList<>();
    private final boolean[] held;
    /** Local permits this acquisition took and has not handed to granted permits. */
    private int localOwed;

    private RuntimeException lastError;

    TakenSlots(LeasedSemaphore semaphore, int wanted, LocalPermits local) {
        this.semaphore = semaphore;
        this.wanted = wanted;
        this.local = local;
        this.held = new boolean[semaphore.permits()];
        this.localOwed = wanted;
    }

    /** True once as many slots as wanted are held. */
    boolean enough() {
        return taken.size() >= wanted;
    }

    boolean held(int slot) {
        return held[slot];
    }

    /** Keeps the grant of {@code slot}, whose local claim its caller made. */
    void keep(int slot, LockHandle hold) {
        held[slot] = true;
        taken.add(new Permit(slot, hold));
    }

    /** Keeps the grant of {@code slot} that a wait brought, claiming the slot locally. */
    void keepWaited(int slot, LockHandle hold) {
        local.claim(slot);
        keep(slot, hold);
    }

    /** Records a failed request. A closed registry and errors are thrown at once. */
    void failed(Throwable error) {
        if (error instanceof IllegalStateException closed) {
            throw closed; // the registry was closed. Nothing will come free
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        lastError = error instanceof RuntimeException runtime ? runtime : new IllegalStateException(error);
    }

    /** Records a passing failure that a later request may ride out. */
    void passingFailure(RuntimeException error) {
        lastError = error;
    }

    /** The last failure recorded, or null. */
    RuntimeException lastError() {
        return lastError;
    }

    /** Local permits still owed back to {@link LocalPermits} when the acquisition ends. */
    int localOwed() {
        return localOwed;
    }

    /** Hands the slots held over as the caller's permits. Each gives its local permit back when it ends. */
    Optional<Permits> granted() {
        taken.sort(Comparator.comparingInt(Permit::slot));
        local.permitsGranted(taken.size());
        localOwed -= taken.size();
        for (Permit permit : taken) {
            permit.endsWith(() -> local.permitEnded(permit.slot()));
        }
        Permits permits = new Permits(semaphore.name(), taken);
        taken.clear();
        return Optional.of(permits);
    }

    /** Not enough permits in time. Gives back what was taken. A failure seen on the way is the answer. */
    Optional<Permits> notGranted() {
        giveBack();
        if (lastError != null) {
            throw lastError;
        }
        return Optional.empty();
    }

    /** Releases every slot held. */
    void giveBack() {
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
}
