package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Keeps each hold's lease while it is held. It renews (on session backends, confirms) leases every third of their
 * period and queues the checks of each lease's end on the {@link LeaseKeeper}. {@link LeaseEnds} gives the verdicts.
 * A lost hold is never renewed again.
 */
final class Renewals<L extends BackendLease> {

    private final LockBackend<L> backend;
    private final LeaseKeeper keeper;
    private final LeaseEnds<L> ends;
    private final HoldEvents<L> events;
    private final boolean sessions;

    /** @param ends decides when a lease has ended and declares holds lost */
    Renewals(LockBackend<L> backend, LeaseKeeper keeper, LeaseEnds<L> ends, HoldEvents<L> events) {
        this.backend = backend;
        this.keeper = keeper;
        this.ends = ends;
        this.events = events;
        this.sessions = backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
    }

    void start(Hold<L> hold) {
        // The only job until the first renewal, so a hold released before then takes no lock of the keeper.
        if (hold.renewed) {
            keeper.atFirst(
                    hold.keeping,
                    LeaseKeeper.Job.TIMER,
                    renewalAfter(hold, hold.lease.grantRequestedAtNanos()),
                    () -> renewalDue(hold));
        } else {
            long end = hold.leaseEndNanos();
            long confirmation = confirmationAfter(hold, hold.lease.grantRequestedAtNanos());
            if (hold.hasSessionBound() && end - confirmation > 0) {
                // The fixed end is queued when the first confirmation is (see confirmationDue).
                keeper.atFirst(hold.keeping, LeaseKeeper.Job.CONFIRMATION, confirmation, () -> confirmationDue(hold));
            } else {
                keeper.atFirst(hold.keeping, LeaseKeeper.Job.TIMER, end, fixedLeaseEnd(hold, end));
            }
        }
    }

    /** When a confirmation of a fixed lease's session is due after one requested at {@code fromNanos}. */
    private static long confirmationAfter(Hold<?> hold, long fromNanos) {
        return fromNanos + hold.sessionPeriodNanos / 3;
    }

    private void scheduleConfirmation(Hold<L> hold, long atNanos) {
        keeper.at(hold.keeping, LeaseKeeper.Job.CONFIRMATION, atNanos, () -> confirmationDue(hold));
    }

    /** Runs on the sweep thread when a fixed lease's session is due for confirmation. */
    private void confirmationDue(Hold<L> hold) {
        if (hold.state() != Hold.State.HELD) {
            return;
        }
        scheduleFixedLeaseEnd(hold);
        scheduleSessionEndCheck(hold);
        keeper.run(() -> confirm(hold));
    }

    private void scheduleSessionEndCheck(Hold<L> hold) {
        long end = hold.sessionEndNanos();
        keeper.at(hold.keeping, LeaseKeeper.Job.LEASE_END, end, () -> {
            if (hold.sessionEndNanos() == end && hold.state() == Hold.State.HELD) {
                ends.lose(hold, LeaseEnds.SESSION_UNCONFIRMED);
            }
        });
    }

    private void confirm(Hold<L> hold) {
        if (hold.state() != Hold.State.HELD) {
            return;
        }
        long start = System.nanoTime();
        if (hold.leaseLeft(start) <= 0) {
            ends.loseIfExpired(hold);
            return;
        }
        boolean held;
        try {
            held = backend.renew(hold.lease, hold.leaseTime);
        } catch (RuntimeException e) {
            events.backendError(hold.keyState.fullKey, e);
            long now = System.nanoTime();
            if (hold.state() == Hold.State.HELD && hold.leaseLeft(now) > 0) {
                LockEngine.log.debug("Confirmation of lock '{}' failed; retrying", hold.key, e);
                long retry = Math.min(hold.sessionPeriodNanos / 10, TimeUnit.SECONDS.toNanos(1));
                scheduleConfirmation(hold, now + Math.min(retry, hold.leaseLeft(now)));
            } else {
                ends.loseIfExpired(hold);
            }
            return;
        }
        if (hold.state() != Hold.State.HELD) {
            return;
        }
        if (!held) {
            ends.lose(hold, "the lock node or session is gone");
            return;
        }
        hold.confirmedAt(start);
        scheduleConfirmation(hold, confirmationAfter(hold, start));
        scheduleSessionEndCheck(hold);
    }

    private void scheduleFixedLeaseEnd(Hold<L> hold) {
        long end = hold.leaseEndNanos();
        keeper.at(hold.keeping, LeaseKeeper.Job.TIMER, end, fixedLeaseEnd(hold, end));
    }

    private Runnable fixedLeaseEnd(Hold<L> hold, long end) {
        return () -> {
            if (hold.leaseEndNanos() == end) {
                ends.fixedLeaseEnded(hold);
            }
        };
    }

    /**
     * Sets a fixed lease to end {@code leaseTime} from now. False when the hold is no longer valid or the server no
     * longer has it.
     */
    boolean extend(Hold<L> hold, Duration leaseTime) {
        if (hold.renewed) {
            throw new IllegalStateException("Lock '" + hold.key + "' on " + events.describe()
                    + " is renewed by the watchdog; extend() applies to holds with a fixed lease");
        }
        KeyCheck.duration("leaseTime", leaseTime, hold.key, backend.name(), false);
        if (!hold.isValid()) {
            return false;
        }
        long start = System.nanoTime();
        boolean held = call(hold, () -> backend.renew(hold.lease, leaseTime));
        if (!held) {
            ends.lose(hold, "the server no longer had it when extending its lease");
            return false;
        }
        synchronized (hold) {
            if (hold.state() != Hold.State.HELD) {
                return false;
            }
            hold.extendedAt(start, leaseTime);
        }
        scheduleFixedLeaseEnd(hold);
        if (hold.hasSessionBound()) {
            scheduleConfirmation(hold, confirmationAfter(hold, start));
            scheduleSessionEndCheck(hold);
        }
        return true;
    }

    private boolean call(Hold<L> hold, java.util.function.BooleanSupplier renewal) {
        try {
            return Interrupts.cleared(renewal::getAsBoolean);
        } catch (RuntimeException e) {
            events.backendError(hold.keyState.fullKey, e);
            throw e;
        }
    }

    private void scheduleRenewal(Hold<L> hold, long fromNanos) {
        keeper.at(hold.keeping, LeaseKeeper.Job.TIMER, renewalAfter(hold, fromNanos), () -> renewalDue(hold));
    }

    /** When a renewal is due, a third of the period after the lease was granted or last renewed. */
    private static long renewalAfter(Hold<?> hold, long fromNanos) {
        return fromNanos + hold.periodNanos / 3;
    }

    private void scheduleRenewalRetry(Hold<L> hold) {
        long retry = Math.min(hold.periodNanos / 10, TimeUnit.SECONDS.toNanos(1));
        long now = System.nanoTime();
        keeper.at(
                hold.keeping,
                LeaseKeeper.Job.TIMER,
                now + Math.min(retry, Math.max(0, hold.leaseLeft(now))),
                () -> renewalDue(hold));
    }

    /**
     * Runs on the sweep thread when a renewal is due. The check of the lease's end is queued first, so a renewal that
     * gets no answer cannot delay the verdict that the lease ran out.
     */
    private void renewalDue(Hold<L> hold) {
        if (hold.state() != Hold.State.HELD) {
            return;
        }
        scheduleLeaseEndCheck(hold);
        keeper.run(() -> renew(hold));
    }

    /**
     * At the lease's end the hold is lost, unless a renewal sent before the end still waits for its answer. Then that
     * renewal decides, or the hold is lost {@link #answerGrace} after the end. {@code isValid()} is false meanwhile.
     */
    private void scheduleLeaseEndCheck(Hold<L> hold) {
        long end = hold.leaseEndNanos();
        keeper.at(hold.keeping, LeaseKeeper.Job.LEASE_END, end, () -> {
            if (hold.awaitingRenewalAt(end)) {
                keeper.at(
                        hold.keeping, LeaseKeeper.Job.LEASE_END, end + answerGrace(hold), () -> leaseEnded(hold, end));
            } else {
                leaseEnded(hold, end);
            }
        });
    }

    private void leaseEnded(Hold<L> hold, long end) {
        if (hold.leaseEndNanos() == end && hold.state() == Hold.State.HELD) {
            if (hold.isRenewing()) {
                ends.loseForLeaseEnd(hold, "a renewal got no answer");
            } else {
                ends.loseForLeaseEnd(hold);
            }
        }
    }

    /** How long after a lease's end an earlier renewal may still answer. A sixth of the period, at most 1 s. */
    private static long answerGrace(Hold<?> hold) {
        return Math.min(hold.periodNanos / 6, TimeUnit.SECONDS.toNanos(1));
    }

    private void renew(Hold<L> hold) {
        if (hold.state() != Hold.State.HELD) {
            return;
        }
        long start = System.nanoTime();
        if (ends.ranOut(hold, start)) {
            return;
        }
        boolean held;
        hold.renewing(true);
        try {
            held = backend.renew(hold.lease, hold.leaseTime);
        } catch (RuntimeException e) {
            hold.renewing(false);
            events.backendError(hold.keyState.fullKey, e);
            if (hold.state() != Hold.State.HELD) {
                return;
            }
            if (!ends.ranOut(hold, System.nanoTime(), "renewal failed: " + e.getMessage())) {
                LockEngine.log.debug("Renewal of lock '{}' failed; retrying", hold.key, e);
                scheduleRenewalRetry(hold);
            }
            return;
        }
        Hold.State state = hold.answered(held, start);
        if (state == Hold.State.LOST && held) {
            LockEngine.log.warn(
                    "Lock '{}' on {}: a renewal answered that the key is still held after the lease had been declared"
                            + " lost. It is not renewed again; the server keeps it until the holder releases it or"
                            + " the lease ends.",
                    hold.key,
                    events.describe());
            return;
        }
        if (state != Hold.State.HELD) {
            return;
        }
        if (!held) {
            ends.lose(
                    hold, sessions ? "the lock node or session is gone" : "the server no longer had it when renewing");
            return;
        }
        if (ends.ranOut(hold, System.nanoTime(), "a renewal took longer than the lease to answer")) {
            return;
        }
        scheduleRenewal(hold, start);
        scheduleLeaseEndCheck(hold);
    }
}
