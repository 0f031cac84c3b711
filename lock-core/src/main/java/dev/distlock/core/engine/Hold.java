package dev.distlock.core.engine;

import dev.distlock.core.FencingToken;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One hold's state, its local view of the lease and its transitions. The stages decide when a transition happens.
 * {@link LeaseEnds#lose} is the one way to "lost" and {@link Releases#end} the one way to "ended". The states and
 * the local lease are in {@code docs/internals/engine.md}.
 */
final class Hold<L extends BackendLease> {

    enum State {
        HELD,
        /** Released by its owner before its minimum hold ended, and kept on the server until then. */
        LINGERING,
        LOST,
        ENDED
    }

    /** Why a hold ended, which decides how its release is reported. */
    enum Ending {
        RELEASED,
        REPLACED,
        CLOSED,
        MINIMUM_HOLD_OVER,
        /** Its registry closed while it lingered. Its lease on the server ends with the minimum by itself. */
        LEFT_ON_SERVER
    }

    final LockBackend<L> backend;
    final KeyState<L> keyState;
    final String key;
    final L lease;
    /** The lease asked for. Renewals extend it by this, or it is the fixed lease. */
    final Duration leaseTime;
    /** True when the lease is kept by renewals (or session confirmations), false for a fixed lease. */
    final boolean renewed;
    /** How long a grant or a confirmed renewal makes the lease last locally, in whole milliseconds. */
    final long periodNanos;
    /** How long a session confirmation makes a fixed lease on a session backend last locally. 0 when unbounded. */
    final long sessionPeriodNanos;

    final Instant heldSince = Instant.now();
    final String ownerName;

    /** The lease keeper's bookkeeping for this hold. */
    final LeaseKeeper.Schedule keeping = new LeaseKeeper.Schedule();

    private State state = State.HELD;
    private boolean gateFreed;
    private boolean wasLost;
    private List<Runnable> lostCallbacks;
    private volatile long leaseEndNanos;
    /** The last session confirmation plus the session timeout, for a fixed lease on a session backend. */
    private volatile long sessionEndNanos;

    private volatile long minimumEndNanos;
    private volatile boolean renewing;

    /** The hold {@code lease} grants to {@code acquisition}, its local lease counted from just before the request. */
    Hold(LockBackend<L> backend, KeyState<L> keyState, Acquisition acquisition, L lease) {
        boolean sessions = backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
        this.backend = backend;
        this.keyState = keyState;
        this.key = acquisition.key();
        this.lease = lease;
        this.leaseTime = acquisition.leaseTime();
        this.renewed = acquisition.renewed();
        // A hold lasts no longer than its known session. A fixed lease gets that bound besides its own end.
        Duration period = renewed && sessions ? backend.sessionLeaseTime() : leaseTime;
        this.periodNanos = wholeMillis(period);
        this.sessionPeriodNanos = !renewed && sessions ? wholeMillis(backend.sessionLeaseTime()) : 0;
        this.ownerName =
                acquisition.owner() == null ? "handle" : acquisition.owner().getName();
        this.leaseEndNanos = lease.grantRequestedAtNanos() + periodNanos;
        this.sessionEndNanos = lease.grantRequestedAtNanos() + sessionPeriodNanos;
    }

    private static long wholeMillis(Duration duration) {
        return TimeUnit.MILLISECONDS.toNanos(duration.toMillis());
    }

    FencingToken token() {
        return lease.token();
    }

    boolean isValid() {
        return state() == State.HELD && leaseLeft(System.nanoTime()) > 0 && backend.isLeaseSafe(lease);
    }

    synchronized State state() {
        return state;
    }

    /** Time left of the local view of the lease, and of the session bound when there is one. */
    long leaseLeft(long now) {
        long left = leaseEndNanos - now;
        return sessionPeriodNanos == 0 ? left : Math.min(left, sessionEndNanos - now);
    }

    /** Whether the hold has a session bound of its own (a fixed lease on a session backend). */
    boolean hasSessionBound() {
        return sessionPeriodNanos != 0;
    }

    long sessionEndNanos() {
        return sessionEndNanos;
    }

    /** A confirmation of the session and the hold, requested at {@code requestedAtNanos}, succeeded. */
    void confirmedAt(long requestedAtNanos) {
        if (sessionPeriodNanos != 0) {
            sessionEndNanos = requestedAtNanos + sessionPeriodNanos;
        }
    }

    long leaseEndNanos() {
        return leaseEndNanos;
    }

    /** A renewal requested at {@code requestedAtNanos} was confirmed by the server. */
    private void renewedAt(long requestedAtNanos) {
        leaseEndNanos = requestedAtNanos + periodNanos;
    }

    /** A fixed lease was extended by a request sent at {@code requestedAtNanos}. */
    void extendedAt(long requestedAtNanos, Duration leaseTime) {
        leaseEndNanos = requestedAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseTime.toMillis());
        confirmedAt(requestedAtNanos); // the extension confirmed the hold too
    }

    void renewing(boolean inFlight) {
        renewing = inFlight;
    }

    /**
     * Records a renewal's answer. A "still held" moves the lease's end in one step with clearing the in-flight mark,
     * so a lease-end check sees one or the other.
     *
     * @return the state after the answer was recorded
     */
    synchronized State answered(boolean held, long requestedAtNanos) {
        if (held && state == State.HELD) {
            renewedAt(requestedAtNanos);
        }
        renewing = false;
        return state;
    }

    /** Whether the lease still ends at {@code endNanos} and a renewal sent before then waits for its answer. */
    synchronized boolean awaitingRenewalAt(long endNanos) {
        return state == State.HELD && leaseEndNanos == endNanos && renewing;
    }

    boolean isRenewing() {
        return renewing;
    }

    void holdAtLeast(Duration minimum) {
        KeyCheck.duration("minimum hold", minimum, key, backend.name(), true);
        long end = lease.grantRequestedAtNanos() + minimum.toNanos();
        synchronized (this) {
            if (minimumEndNanos == 0 || end - minimumEndNanos > 0) {
                minimumEndNanos = end;
            }
        }
    }

    /** The end of the minimum hold asked for (System.nanoTime), or 0 when none was. */
    long minimumEndNanos() {
        return minimumEndNanos;
    }

    /** Held → lingering, with its lease ending at {@code endNanos}. False when it was no longer held. */
    synchronized boolean startLingering(long endNanos) {
        if (state != State.HELD) {
            return false;
        }
        state = State.LINGERING;
        lostCallbacks = null;
        leaseEndNanos = endNanos;
        return true;
    }

    /**
     * Keeps {@code callback} for when the hold is lost.
     *
     * @return true when the hold was lost already and the caller runs the callback now. False when it was kept, or
     *     dropped because the hold ended without being lost.
     */
    synchronized boolean addLostCallback(Runnable callback) {
        if (state == State.HELD) {
            if (lostCallbacks == null) {
                lostCallbacks = new ArrayList<>(1);
            }
            lostCallbacks.add(callback);
            return false;
        }
        return wasLost;
    }

    /**
     * Held → lost. The caller ({@link LeaseEnds#lose}) frees the gate and tells the engine.
     *
     * @return the owners' lease-loss callbacks to run, or null when the hold was no longer held
     */
    synchronized List<Runnable> markLost() {
        if (state != State.HELD) {
            return null;
        }
        state = State.LOST;
        wasLost = true;
        List<Runnable> callbacks = lostCallbacks == null ? List.of() : lostCallbacks;
        lostCallbacks = null;
        return callbacks;
    }

    /**
     * Any state → ended. The caller ({@link Releases#end}) frees the key on the server and the gate.
     *
     * @return the state before, or null when the hold had ended already
     */
    synchronized State markEnded() {
        if (state == State.ENDED) {
            return null;
        }
        State before = state;
        state = State.ENDED;
        lostCallbacks = null;
        return before;
    }

    /** Frees the key's local gate, at most once in the hold's life. */
    void freeGate() {
        synchronized (this) {
            if (gateFreed) {
                return;
            }
            gateFreed = true;
        }
        keyState.gate.release();
    }

    HoldInfo info(String backend) {
        long left = leaseLeft(System.nanoTime());
        return new HoldInfo(
                key,
                keyState.fullKey,
                backend,
                token(),
                heldSince,
                Optional.of(Duration.ofNanos(Math.max(0, left))),
                renewed,
                isValid(),
                ownerName,
                HoldInfo.Kind.EXCLUSIVE);
    }

    @Override
    public String toString() {
        return "Hold[" + key + ", token " + token() + ", " + state() + "]";
    }
}
