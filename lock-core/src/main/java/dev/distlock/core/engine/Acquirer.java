package dev.distlock.core.engine;

import dev.distlock.core.LockObserver.Outcome;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes holds. It joins the owner's live hold (reentrancy), or passes the key's local gate and asks the backend. An
 * owner whose hold was lost gets a fresh hold with a new token in its place, or nothing when the key is taken.
 */
final class Acquirer<L extends BackendLease> {

    private final LockEngine<L> engine;
    private final AtomicLong holdSequence = new AtomicLong();

    Acquirer(LockEngine<L> engine) {
        this.engine = engine;
    }

    /**
     * Joins the owner's live hold or takes a new one.
     *
     * @return the ownership and the hold backing this acquisition, or empty when the wait ran out
     * @throws InterruptedException when interrupted, or when the attempt was abandoned at the gate
     */
    Optional<Acquired<L>> acquire(Acquisition acquisition) throws InterruptedException {
        engine.checkOpen();
        KeyCheck.duration("waitTime", acquisition.waitTime(), acquisition.key(), engine.backend.name(), true);
        KeyCheck.duration("leaseTime", acquisition.leaseTime(), acquisition.key(), engine.backend.name(), false);
        long start = System.nanoTime();
        KeyState<L> state = engine.keys.retain(acquisition.fullKey());
        Outcome outcome = Outcome.ERROR;
        Acquired<L> acquired = null;
        try {
            acquired = joinOrTake(acquisition, state);
            outcome = acquired == null ? Outcome.TIMEOUT : Outcome.ACQUIRED;
            return Optional.ofNullable(acquired);
        } catch (InterruptedException e) {
            outcome = Outcome.INTERRUPTED;
            throw e;
        } finally {
            if (acquired == null || !acquired.newOwnership()) {
                engine.keys.unretain(state);
            }
            engine.events.acquisitionEnded(acquisition.key(), outcome, start);
        }
    }

    /** Joins the owner's live hold, or takes a new hold in a lost hold's place or in a new ownership. */
    private Acquired<L> joinOrTake(Acquisition acquisition, KeyState<L> state) throws InterruptedException {
        Ownership<L> own = acquisition.owner() == null ? null : state.ownedBy(acquisition.owner());
        if (own != null) {
            // A lease that ran out before its end was processed is never joined.
            engine.leaseEnds.loseIfExpired(own.hold());
            synchronized (state) {
                if (own.hold.state() == Hold.State.HELD) {
                    own.count++;
                    return new Acquired<>(engine, own, own.hold, false);
                }
            }
        }
        Hold<L> hold = take(acquisition, state, Deadline.after(acquisition.waitTime()));
        return hold == null ? null : own(state, own, hold, acquisition.owner());
    }

    /** Counts {@code hold} in the owner's ownership, replacing a lost hold there, or in a new ownership. */
    private Acquired<L> own(KeyState<L> state, Ownership<L> own, Hold<L> hold, Thread owner) {
        Hold<L> replaced;
        synchronized (state) {
            if (own == null || own.count == 0) {
                Ownership<L> ownership = new Ownership<>(state, owner, hold);
                state.register(ownership);
                return new Acquired<>(engine, ownership, hold, true);
            }
            replaced = own.hold;
            own.hold = hold;
            own.count++;
        }
        engine.releases.end(replaced, Hold.Ending.REPLACED);
        return new Acquired<>(engine, own, hold, false);
    }

    /**
     * Passes the key's local gate and takes the key on the server. The new hold owns the gate. Only a zero wait asks
     * the server once its deadline has passed (contract 8).
     *
     * @return the new hold, or null when the wait ran out
     */
    private Hold<L> take(Acquisition acquisition, KeyState<L> state, Deadline deadline) throws InterruptedException {
        Waiters.Waiter waiter = engine.waiters.enter();
        Hold<L> hold = null;
        InterruptedException interrupted = null;
        boolean endedByClose;
        try {
            if (passGate(state, deadline, acquisition.abandonment())) {
                hold = askAfterGate(acquisition, state, deadline);
            }
        } catch (InterruptedException e) {
            interrupted = e;
        } finally {
            endedByClose = engine.waiters.leave(waiter);
        }
        if (endedByClose || (hold != null && engine.isClosed())) {
            if (hold != null) {
                engine.releases.end(hold, Hold.Ending.CLOSED);
            }
            throw new IllegalStateException("The " + engine.backend.name() + " lock registry was closed while this"
                    + " thread waited for lock '" + acquisition.key() + "'");
        }
        if (interrupted != null) {
            throw interrupted;
        }
        if (hold != null) {
            engine.started(hold);
        }
        return hold;
    }

    /** Asks the server with the gate passed, and frees the gate again unless a hold came of it. */
    private Hold<L> askAfterGate(Acquisition acquisition, KeyState<L> state, Deadline deadline)
            throws InterruptedException {
        Hold<L> hold = null;
        try {
            hold = askForLiveHold(acquisition, state, deadline);
            return hold;
        } catch (RuntimeException e) {
            engine.events.backendError(state.fullKey, e);
            throw e;
        } finally {
            if (hold == null) {
                state.gate.release();
            }
        }
    }

    /**
     * Asks the backend, and asks again within the wait while a grant comes after its local lease has ended. A call
     * never returns a dead hold (contract 4).
     *
     * @return the live hold, or null when the wait ran out
     */
    private Hold<L> askForLiveHold(Acquisition acquisition, KeyState<L> state, Deadline deadline)
            throws InterruptedException {
        for (boolean first = true; ; first = false) {
            LockRequest request = new LockRequest(
                    state.fullKey,
                    newOwner(acquisition.owner()),
                    acquisition.leaseTime(),
                    deadline,
                    engine.holderDescription(acquisition.owner(), acquisition.note()),
                    acquisition.guardKey());
            // A wait that ran out at the gate has timed out. Asking now would fail on a passing error.
            if (!(first && acquisition.zeroWait()) && deadline.hasPassed()) {
                return null;
            }
            L lease = engine.backend.tryAcquire(request).orElse(null);
            if (lease == null) {
                return null;
            }
            Hold<L> hold = new Hold<>(engine.backend, state, acquisition, lease);
            if (hold.leaseLeft(System.nanoTime()) > 0) {
                return hold;
            }
            giveBack(hold);
        }
    }

    /** Frees a grant that came after its local lease would have ended (contract 4). The caller asks again. */
    private void giveBack(Hold<L> dead) {
        LockEngine.log.debug(
                "Lock '{}' on {} was granted after its lease would have ended here; giving it back and asking again"
                        + " within the wait",
                dead.key,
                engine.events.describe());
        engine.releases.quietly(dead); // if this fails, the unrenewed lease ends on the server
    }

    /**
     * Waits at the key's local gate until the deadline.
     *
     * @return true when the gate was passed (its permit is taken), false when the wait ran out
     * @throws InterruptedException when interrupted, or when the attempt was abandoned before it passed
     */
    private static boolean passGate(KeyState<?> state, Deadline deadline, Abandonment abandonment)
            throws InterruptedException {
        if (abandonment == null) {
            return state.gate.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        }
        if (!abandonment.enterGate()) {
            throw abandoned();
        }
        boolean passed;
        try {
            passed = state.gate.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            if (abandonment.leaveGate()) {
                throw abandoned();
            }
            throw e;
        }
        if (abandonment.leaveGate()) {
            if (passed) {
                state.gate.release();
            }
            throw abandoned();
        }
        return passed;
    }

    private static InterruptedException abandoned() {
        return new InterruptedException("The caller cancelled this attempt before it asked the server");
    }

    private OwnerId newOwner(Thread owner) {
        return new OwnerId(engine.registryId, owner == null ? 0 : owner.getId(), holdSequence.incrementAndGet());
    }

    /**
     * One acquisition's engine, the ownership it counts in and the hold it got. {@code newOwnership} is true when the
     * ownership was made for it and keeps the key's local state referenced.
     */
    record Acquired<L extends BackendLease>(
            LockEngine<L> engine, Ownership<L> ownership, Hold<L> hold, boolean newOwnership) {}
}
