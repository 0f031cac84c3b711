package dev.distlock.core.engine;

import dev.distlock.core.FencingToken;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.spi.BackendLease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One hold with one life: granted → held (its lease kept by the {@link LeaseKeeper}) → ended by
 * its owner's last release, or → lost (lease ran out, refused, session gone) and later ended by
 * that release. {@link #lose} and {@link #end} are the only ways out of "held"; each frees the
 * key's local gate at most once and tells observers once.
 *
 * <p>The local view of the lease counts from just before the request that was granted and is
 * rounded down to whole milliseconds, so it never outlives the server's (backends round up).
 */
final class Hold<L extends BackendLease> {

    enum State {
        HELD,
        /** Released by its owner before its minimum hold ended: kept on the server until then. */
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
        /** Its registry closed while it lingered: its lease on the server ends with the minimum by itself. */
        LEFT_ON_SERVER
    }

    final LockEngine<L> engine;
    final KeyState<L> keyState;
    final String key;
    final L lease;
    /** The lease asked for: what renewals extend it by, or the fixed lease. */
    final Duration leaseTime;
    /** True when the lease is kept by renewals (or session confirmations), false for a fixed lease. */
    final boolean renewed;
    /** How long a grant or a confirmed renewal makes the lease last locally, in whole milliseconds. */
    final long periodNanos;
    /**
     * For a fixed lease on a session backend: how long a confirmation of the session makes the hold
     * last locally (the session timeout), in whole milliseconds; 0 when the hold has no such bound.
     */
    final long sessionPeriodNanos;

    final Instant heldSince = Instant.now();
    final String ownerName;

    /** What the lease keeper has queued for this hold, one entry per slot; guarded by the keeper. */
    final LeaseKeeper.Due[] dues = new LeaseKeeper.Due[LeaseKeeper.Slot.values().length];
    /** The hold's first entry for the lease keeper until the keeper queues it, else null. */
    volatile LeaseKeeper.Arrival arrival;
    /** True once the lease keeper may have queued entries for this hold. */
    volatile boolean queued;

    private State state = State.HELD;
    private boolean gateFreed;
    private boolean wasLost;
    private List<Runnable> lostCallbacks;
    private volatile long leaseEndNanos;
    /** The session bound of a fixed lease on a session backend: the last confirmation plus the session timeout. */
    private volatile long sessionEndNanos;

    private volatile long minimumEndNanos;
    private volatile boolean renewing;

    Hold(
            LockEngine<L> engine,
            KeyState<L> keyState,
            String key,
            L lease,
            Duration leaseTime,
            boolean renewed,
            Duration period,
            Duration sessionPeriod,
            String ownerName) {
        this.engine = engine;
        this.keyState = keyState;
        this.key = key;
        this.lease = lease;
        this.leaseTime = leaseTime;
        this.renewed = renewed;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(period.toMillis());
        this.sessionPeriodNanos = sessionPeriod == null ? 0 : TimeUnit.MILLISECONDS.toNanos(sessionPeriod.toMillis());
        this.ownerName = ownerName;
        this.leaseEndNanos = lease.grantRequestedAtNanos() + periodNanos;
        this.sessionEndNanos = lease.grantRequestedAtNanos() + sessionPeriodNanos;
    }

    FencingToken token() {
        return lease.token();
    }

    boolean isValid() {
        return state() == State.HELD && leaseLeft(System.nanoTime()) > 0 && engine.backend.isLeaseSafe(lease);
    }

    synchronized State state() {
        return state;
    }

    /** Time left of the local view: the lease, and for a fixed lease on a session backend also the session bound. */
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
    void renewedAt(long requestedAtNanos) {
        leaseEndNanos = requestedAtNanos + periodNanos;
    }

    /** A fixed lease was extended by a request sent at {@code requestedAtNanos}. */
    void extendedAt(long requestedAtNanos, Duration leaseTime) {
        leaseEndNanos = requestedAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseTime.toMillis());
        confirmedAt(requestedAtNanos); // the extension asked the server about the hold: a confirmation too
    }

    void renewing(boolean inFlight) {
        renewing = inFlight;
    }

    boolean isRenewing() {
        return renewing;
    }

    void holdAtLeast(Duration minimum) {
        KeyCheck.duration("minimum hold", minimum, key, engine.backend.name(), true);
        long end = lease.grantRequestedAtNanos() + minimum.toNanos();
        synchronized (this) {
            if (minimumEndNanos == 0 || end - minimumEndNanos > 0) {
                minimumEndNanos = end;
            }
        }
    }

    /** Owner's last release: lingers on the server until a pending minimum hold ends, else ends now. */
    void release() {
        loseIfExpired(); // a lease that ran out is lost, whether or not the lease keeper said so yet
        long end = minimumEndNanos;
        if (end != 0 && state() == State.HELD && engine.renewals().linger(this, end)) {
            return;
        }
        end(Ending.RELEASED);
    }

    /** Moves a held hold to lingering, with its lease ending at {@code endNanos}. */
    synchronized boolean startLingering(long endNanos) {
        if (state != State.HELD) {
            return false;
        }
        state = State.LINGERING;
        lostCallbacks = null;
        leaseEndNanos = endNanos;
        return true;
    }

    boolean extend(Duration leaseTime) {
        if (renewed) {
            throw new IllegalStateException("Lock '" + key + "' on " + engine.describe()
                    + " is renewed by the watchdog; extend() applies to holds with a fixed lease");
        }
        KeyCheck.duration("leaseTime", leaseTime, key, engine.backend.name(), false);
        return isValid() && engine.renewals().extend(this, leaseTime);
    }

    /** Runs {@code callback} once when the lease is lost; at once, on this thread, when it already was. */
    void onLost(Runnable callback) {
        synchronized (this) {
            if (state == State.HELD) {
                if (lostCallbacks == null) {
                    lostCallbacks = new ArrayList<>(1);
                }
                lostCallbacks.add(callback);
                return;
            }
            if (!wasLost) {
                return;
            }
        }
        engine.runCallbackNow(this, callback);
    }

    /**
     * The lease is known lost: the hold turns invalid, the key's local gate is freed so that
     * other threads of this registry may compete again, and the owner is told.
     *
     * @return false when the hold was no longer held
     */
    boolean lose(String reason) {
        List<Runnable> callbacks;
        synchronized (this) {
            if (state != State.HELD) {
                return false;
            }
            state = State.LOST;
            wasLost = true;
            callbacks = lostCallbacks;
            lostCallbacks = null;
        }
        freeGate();
        engine.lost(this, reason);
        if (callbacks != null) {
            callbacks.forEach(callback -> engine.runCallback(this, callback));
        }
        return true;
    }

    /**
     * The verdict on a renewed hold at {@code now}: true when its lease has run out, and then a held
     * hold is declared lost ({@link #loseForLeaseEnd}). The one place that decides it for the lease
     * keeper's renewals.
     *
     * @param renewal what the renewal under way met ("renewal failed: ..."), null when none was
     */
    boolean leaseRanOut(long now, String renewal) {
        if (leaseLeft(now) > 0) {
            return false;
        }
        loseForLeaseEnd(renewal);
        return true;
    }

    /**
     * Declares a renewed hold lost because its lease ran out: the one wording of that reason.
     *
     * @param renewal what the renewal under way met ("a renewal got no answer"), null when none was
     * @return false when the hold was no longer held
     */
    boolean loseForLeaseEnd(String renewal) {
        return lose(
                renewal == null
                        ? "the lease ran out before a renewal succeeded"
                        : "the lease ran out while " + renewal);
    }

    /** Declares the hold lost when its local lease has run out but the lease keeper has not yet said so. */
    void loseIfExpired() {
        if (state() != State.HELD || leaseLeft(System.nanoTime()) > 0) {
            return;
        }
        if (renewed) {
            loseForLeaseEnd(null);
        } else if (leaseEndNanos - System.nanoTime() > 0) {
            lose(Renewals.SESSION_UNCONFIRMED);
        } else {
            // The same path as the lease keeper's: on a session backend the node must go too.
            engine.renewals().fixedLeaseEnded(this);
        }
    }

    /**
     * Ends the hold: the one path for released, replaced and closed holds. Frees the key on the
     * server (see {@link Releases#onServer}) and the local gate.
     */
    void end(Ending ending) {
        State before;
        synchronized (this) {
            if (state == State.ENDED) {
                return;
            }
            before = state;
            state = State.ENDED;
            lostCallbacks = null;
        }
        try {
            engine.releases().onServer(this, before == State.LOST, ending);
        } finally {
            freeGate();
            engine.ended(this);
        }
    }

    private void freeGate() {
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
