package dev.distlock.core.engine;

import dev.distlock.core.DurationText;
import dev.distlock.core.spi.BackendLease;
import java.util.List;

/**
 * Decides and words the verdicts on a hold's lease. The lease ran out, the session went unconfirmed, or the fixed
 * lease ended. {@link #lose} is the one path from held to lost, whoever finds the loss.
 */
final class LeaseEnds<L extends BackendLease> {

    /** Why a fixed lease on a session backend was lost before its end. */
    static final String SESSION_UNCONFIRMED =
            "its session could not be confirmed within the session timeout (the session may have ended)";

    private final LeaseKeeper keeper;
    private final HoldEvents<L> events;
    private final Releases<L> releases;
    private final boolean sessions;

    /**
     * @param releases frees the node of a fixed lease that ended on a session backend
     * @param sessions whether the backend keeps holds by sessions, which outlive a fixed lease
     */
    LeaseEnds(LeaseKeeper keeper, HoldEvents<L> events, Releases<L> releases, boolean sessions) {
        this.keeper = keeper;
        this.events = events;
        this.releases = releases;
        this.sessions = sessions;
    }

    /**
     * Declares the hold lost. It turns invalid, its lease is no longer kept, the key's local gate is freed for the
     * registry's other threads, and the owner is told.
     *
     * @return false when the hold was no longer held
     */
    boolean lose(Hold<L> hold, String reason) {
        List<Runnable> callbacks = hold.markLost();
        if (callbacks == null) {
            return false;
        }
        hold.freeGate();
        keeper.forget(hold.keeping);
        events.lost(hold, reason);
        callbacks.forEach(callback -> events.callback(hold, callback, false));
        return true;
    }

    /**
     * The verdict on a renewed hold at {@code now} when no renewal is under way. True when its lease has run out, and
     * then a held hold is declared lost ({@link #loseForLeaseEnd(Hold)}).
     */
    boolean ranOut(Hold<L> hold, long now) {
        if (hold.leaseLeft(now) > 0) {
            return false;
        }
        loseForLeaseEnd(hold);
        return true;
    }

    /**
     * As {@link #ranOut(Hold, long)}, while a renewal is under way.
     *
     * @param renewal what the renewal under way met, such as "renewal failed" and the error
     */
    boolean ranOut(Hold<L> hold, long now, String renewal) {
        if (hold.leaseLeft(now) > 0) {
            return false;
        }
        loseForLeaseEnd(hold, renewal);
        return true;
    }

    /**
     * Declares a renewed hold lost because its lease ran out before a renewal succeeded.
     *
     * @return false when the hold was no longer held
     */
    boolean loseForLeaseEnd(Hold<L> hold) {
        return lose(hold, "the lease ran out before a renewal succeeded");
    }

    /**
     * Declares a renewed hold lost because its lease ran out while a renewal was under way.
     *
     * @param renewal what the renewal under way met ("a renewal got no answer")
     * @return false when the hold was no longer held
     */
    boolean loseForLeaseEnd(Hold<L> hold, String renewal) {
        return lose(hold, "the lease ran out while " + renewal);
    }

    /**
     * Declares the hold lost when its local lease has run out before the lease keeper said so. Called before a hold
     * is joined, released or closed.
     */
    void loseIfExpired(Hold<L> hold) {
        if (hold.state() != Hold.State.HELD || hold.leaseLeft(System.nanoTime()) > 0) {
            return;
        }
        if (hold.renewed) {
            loseForLeaseEnd(hold);
        } else if (hold.leaseEndNanos() - System.nanoTime() > 0) {
            lose(hold, SESSION_UNCONFIRMED);
        } else {
            fixedLeaseEnded(hold);
        }
    }

    /**
     * Declares a hold whose fixed lease ran out lost, and removes its node on a session backend. The one path for
     * it, whether the lease keeper or a caller found it.
     */
    void fixedLeaseEnded(Hold<L> hold) {
        if (!lose(hold, "its fixed lease of " + DurationText.format(hold.leaseTime) + " ran out")) {
            return;
        }
        if (sessions) {
            // A session keeps the node past a fixed lease, so end it on the server here.
            keeper.run(() -> releases.quietly(hold));
        }
    }
}
