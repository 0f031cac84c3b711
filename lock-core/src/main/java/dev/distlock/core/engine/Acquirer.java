package dev.distlock.core.engine;

import dev.distlock.core.LockObserver.Outcome;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Takes holds: joins the owner's live hold (reentrancy), or passes the key's local gate and asks
 * the backend. An owner whose hold was lost gets a fresh hold in its place (with a new token),
 * or nothing when the key is taken; the lost hold is released then.
 */
final class Acquirer<L extends BackendLease> {

    private final LockEngine<L> engine;
    private final AtomicLong holdSequence = new AtomicLong();

    Acquirer(LockEngine<L> engine) {
        this.engine = engine;
    }

    /**
     * @param owner the owning thread, or null for a hold that belongs to its handle
     * @param note recorded with a new hold beside the holder description, or null
     * @return the ownership and the hold backing this acquisition, or empty when the wait ran out
     */
    Optional<Acquired<L>> acquire(
            String key,
            String fullKey,
            Duration waitTime,
            Duration leaseTime,
            boolean renewed,
            Thread owner,
            String note)
            throws InterruptedException {
        return acquire(key, fullKey, waitTime, leaseTime, renewed, owner, note, null, null);
    }

    /**
     * As {@link #acquire(String, String, Duration, Duration, boolean, Thread, String)}, for an attempt
     * its caller may abandon: abandoned while it waits at the local gate, it ends with an
     * InterruptedException (reported as {@link Outcome#INTERRUPTED}) without asking the server.
     *
     * @param abandonment the attempt's cancellation, or null when nobody can abandon it
     * @param guardKey null, or the full key that must be free for a zero-wait take to be granted ({@link
     *     LockRequest#guardKey})
     */
    Optional<Acquired<L>> acquire(
            String key,
            String fullKey,
            Duration waitTime,
            Duration leaseTime,
            boolean renewed,
            Thread owner,
            String note,
            Abandonment abandonment,
            String guardKey)
            throws InterruptedException {
        engine.checkOpen();
        KeyCheck.duration("waitTime", waitTime, key, engine.backend.name(), true);
        KeyCheck.duration("leaseTime", leaseTime, key, engine.backend.name(), false);
        long start = System.nanoTime();
        Deadline deadline = Deadline.after(waitTime);
        KeyState<L> state = engine.keys().retain(fullKey);
        Outcome outcome = Outcome.ERROR;
        boolean keepReference = false;
        try {
            Ownership<L> own = owner == null ? null : state.ownedBy(owner);
            if (own != null) {
                // A lease that ran out before its end was processed is never joined.
                engine.leaseEnds().loseIfExpired(own.hold());
                synchronized (state) {
                    if (own.hold.state() == Hold.State.HELD) {
                        own.count++;
                        outcome = Outcome.ACQUIRED;
                        return Optional.of(new Acquired<>(engine, own, own.hold));
                    }
                }
            }
            Optional<Hold<L>> taken = take(
                    key, state, deadline, waitTime.isZero(), leaseTime, renewed, owner, note, abandonment, guardKey);
            if (taken.isEmpty()) {
                outcome = Outcome.TIMEOUT;
                return Optional.empty();
            }
            outcome = Outcome.ACQUIRED;
            Hold<L> hold = taken.get();
            Ownership<L> ownership;
            Hold<L> replaced = null;
            synchronized (state) {
                if (own != null && own.count > 0) {
                    replaced = own.hold;
                    own.hold = hold;
                    own.count++;
                    ownership = own;
                } else {
                    ownership = new Ownership<>(state, owner, hold);
                    state.register(ownership);
                    keepReference = true;
                }
            }
            if (replaced != null) {
                engine.releases().end(replaced, Hold.Ending.REPLACED);
            }
            return Optional.of(new Acquired<>(engine, ownership, hold));
        } catch (InterruptedException e) {
            outcome = Outcome.INTERRUPTED;
            throw e;
        } finally {
            if (!keepReference) {
                engine.keys().unretain(state);
            }
            engine.events().acquisitionEnded(key, outcome, start);
        }
    }

    /**
     * Passes the key's local gate and takes the key on the server; the new hold owns the gate. Only
     * a zero wait asks the server once its deadline has passed (contract 8).
     */
    private Optional<Hold<L>> take(
            String key,
            KeyState<L> state,
            Deadline deadline,
            boolean zeroWait,
            Duration leaseTime,
            boolean renewed,
            Thread owner,
            String note,
            Abandonment abandonment,
            String guardKey)
            throws InterruptedException {
        Waiters.Waiter waiter = engine.waiters.enter();
        Hold<L> hold = null;
        InterruptedException interrupted = null;
        boolean endedByClose;
        try {
            if (passGate(state, deadline, abandonment)) {
                try {
                    hold = askForLiveHold(
                            zeroWait,
                            deadline,
                            () -> new LockRequest(
                                    state.fullKey,
                                    newOwner(owner),
                                    leaseTime,
                                    deadline,
                                    engine.holderDescription(owner, note),
                                    guardKey),
                            lease -> newHold(state, key, lease, leaseTime, renewed, owner));
                } catch (RuntimeException e) {
                    engine.events().backendError(state.fullKey, e);
                    throw e;
                } finally {
                    if (hold == null) {
                        state.gate.release();
                    }
                }
            }
        } catch (InterruptedException e) {
            interrupted = e;
        } finally {
            endedByClose = engine.waiters.leave(waiter);
        }
        if (endedByClose || (hold != null && engine.isClosed())) {
            if (hold != null) {
                engine.releases().end(hold, Hold.Ending.CLOSED);
            }
            throw new IllegalStateException("The " + engine.backend.name() + " lock registry was closed while this"
                    + " thread waited for lock '" + key + "'");
        }
        if (interrupted != null) {
            throw interrupted;
        }
        if (hold != null) {
            engine.started(hold);
        }
        return Optional.ofNullable(hold);
    }

    /**
     * Asks the backend once, and again within the wait while its grant comes after the grant's local lease has
     * ended (contract 4: a call never returns a dead hold).
     *
     * @return the live hold, or null when the wait ran out
     */
    private Hold<L> askForLiveHold(
            boolean zeroWait, Deadline deadline, Supplier<LockRequest> requests, Function<L, Hold<L>> holds)
            throws InterruptedException {
        for (boolean first = true; ; first = false) {
            LockRequest request = requests.get();
            // A wait that ran out before the server was asked (queued on the gate, say) has timed
            // out; asking now would count as a zero wait and fail on a passing error.
            if (!(first && zeroWait) && deadline.hasPassed()) {
                return null;
            }
            L lease = engine.backend.tryAcquire(request).orElse(null);
            if (lease == null) {
                return null;
            }
            Hold<L> hold = holds.apply(lease);
            if (hold.leaseLeft(System.nanoTime()) > 0) {
                return hold;
            }
            giveBack(hold);
        }
    }

    /**
     * Frees a grant whose answer came after its local lease would have ended (contract 4: a call never
     * returns a dead hold); the caller asks again within its wait.
     */
    private void giveBack(Hold<L> dead) {
        LockEngine.log.debug(
                "Lock '{}' on {} was granted after its lease would have ended here; giving it back and asking again"
                        + " within the wait",
                dead.key,
                engine.events().describe());
        engine.releases().quietly(dead); // never renewed: when this fails, the server lets it go at its lease's end
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

    private Hold<L> newHold(KeyState<L> state, String key, L lease, Duration leaseTime, boolean renewed, Thread owner) {
        boolean sessions = engine.backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
        // On a session backend every hold lasts at most as long as its session is known to: a watchdog hold's
        // lease is that bound; a fixed lease keeps its own end and gets the bound on top.
        Duration period = renewed && sessions ? engine.backend.sessionLeaseTime() : leaseTime;
        Duration sessionPeriod = !renewed && sessions ? engine.backend.sessionLeaseTime() : null;
        return new Hold<>(
                engine.backend,
                state,
                key,
                lease,
                leaseTime,
                renewed,
                period,
                sessionPeriod,
                owner == null ? "handle" : owner.getName());
    }

    private OwnerId newOwner(Thread owner) {
        return new OwnerId(engine.registryId, owner == null ? 0 : owner.getId(), holdSequence.incrementAndGet());
    }

    /** One acquisition: the engine it came from, the ownership it counts in and the hold it got. */
    record Acquired<L extends BackendLease>(LockEngine<L> engine, Ownership<L> ownership, Hold<L> hold) {}
}
