package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition call on the lock table. It polls until the row is taken or the deadline passes,
 * rides out an unavailable database, and adopts or withdraws a take whose answer was lost.
 */
final class RowAttempt {

    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    private final LockTableSetup setup;
    private final LockRequest request;
    private final LockRow row;
    private final Deadline deadline;
    private final Duration answerBudget;

    private LockTableSetup.Ready ready;
    private ReleaseSignals.Subscription released;
    /** The channel this attempt put in the key's queue, until it leaves it. */
    private String queuedChannel;

    private boolean acquired;
    /** When the first take whose answer was lost was sent. */
    private long unsureSince;

    private boolean unsure;
    private int failures;
    private int poll;
    /** When this round's take was sent, after set-up and subscription. */
    private long requestedAt;

    private boolean sent;

    RowAttempt(LockTableSetup setup, LockRequest request, Duration answerBudget) {
        this.setup = setup;
        this.request = request;
        this.row = LockRow.of(request);
        this.deadline = request.deadline();
        this.answerBudget = answerBudget;
    }

    /** Takes rounds until the row is taken or the deadline passes, as {@link JdbcLockBackend#tryAcquire} says. */
    Optional<JdbcLease> run() throws InterruptedException {
        try {
            while (true) {
                OptionalLong fence;
                try {
                    fence = takeOnce();
                } catch (DatabaseUnavailableException e) {
                    rideOut(e);
                    continue;
                }
                if (fence.isPresent()) {
                    return Optional.of(granted(fence.getAsLong()));
                }
                if (deadline.hasPassed()) {
                    if (unsure) {
                        ready.upkeep().withdrawLater(row); // a lost take could still commit
                    }
                    return Optional.empty();
                }
                awaitRelease();
            }
        } finally {
            leaveQueue();
        }
    }

    /** One round. It sets up on first use, then looks for a lost take's row or sends a new take. */
    private OptionalLong takeOnce() {
        CallTimeout timeout = JdbcLockBackend.attemptTimeout(deadline, request.leaseTime(), answerBudget);
        requestedAt = 0;
        sent = false;
        prepare();
        OptionalLong fence = unsure ? ready.table().mine(row, timeout) : OptionalLong.empty();
        if (fence.isPresent()) {
            requestedAt = unsureSince;
            return fence;
        }
        WaitQueue queue = released == null ? WaitQueue.NONE : ready.signals().queue(released);
        if (queue.channel() != null) {
            queuedChannel = queue.channel();
        }
        requestedAt = System.nanoTime();
        sent = true;
        fence = take(queue, timeout);
        if (fence.isEmpty() && unsure) {
            // the lost take may have committed after the look before this one
            fence = ready.table().mine(row, timeout);
            requestedAt = unsureSince;
        }
        return fence;
    }

    /** The table set up, and a waiter that takes a place in the queue subscribed before its first take. */
    private void prepare() {
        if (ready == null) {
            ready = setup.ready(row.key(), JdbcLockBackend.setUpTimeout(deadline, answerBudget));
        }
        if (released == null && !deadline.hasPassed() && ready.signals().wakesOne()) {
            released = ready.signals().subscribe(row.key());
        }
    }

    /**
     * One take. A lost connection is thrown for the caller to ride out. Any other failure withdraws
     * what the attempt may have taken before it is thrown.
     */
    private OptionalLong take(WaitQueue queue, CallTimeout timeout) {
        try {
            return ready.table().take(row, queue, timeout);
        } catch (LockStatementTimeoutException busy) {
            log.debug("Lock statement for '{}' gave up waiting; the row counts as taken", row.key(), busy);
            return OptionalLong.empty();
        } catch (DatabaseUnavailableException unavailable) {
            throw unavailable;
        } catch (RuntimeException unknown) {
            ready.upkeep().withdraw(row, deadline, unknown);
            throw unknown;
        }
    }

    /** Pauses after an unavailable database while the wait lasts, and past the deadline withdraws and fails. */
    private void rideOut(DatabaseUnavailableException e) throws InterruptedException {
        if (sent && !unsure) {
            unsure = true;
            unsureSince = requestedAt;
        }
        if (!deadline.hasPassed()) {
            log.debug("The database is unavailable for '{}'; trying again within the wait", row.key(), e);
            pauseAfterFailure();
        }
        if (deadline.hasPassed()) {
            if (unsure) {
                ready.upkeep().withdraw(row, deadline, e);
            }
            throw e;
        }
    }

    private void pauseAfterFailure() throws InterruptedException {
        try {
            TimeUnit.NANOSECONDS.sleep(
                    Math.min(JdbcLockBackend.RIDE_OUT.pauseNanos(++failures), deadline.remainingNanos()));
        } catch (InterruptedException interrupted) {
            if (unsure) {
                ready.upkeep().withdrawLater(row); // the lost take may hold the row
            }
            throw interrupted;
        }
    }

    private JdbcLease granted(long fence) {
        unsure = false;
        acquired = true;
        return new JdbcLease(row.key(), row.owner(), FencingToken.of(fence), requestedAt, request.leaseTime());
    }

    /** Listens before the next poll, so that no release between the two is missed, then waits for one. */
    private void awaitRelease() throws InterruptedException {
        if (released == null) {
            released = ready.signals().subscribe(row.key());
            return;
        }
        released.await(Math.min(ready.signals().backoff().pauseNanos(++poll), deadline.remainingNanos()));
    }

    /** A registry leaves the queue with its last waiter of the key, unless a grant took it off. */
    private void leaveQueue() {
        boolean leave = queuedChannel != null
                && !acquired
                && !ready.signals().queue(released).stay();
        if (released != null) {
            released.close();
        }
        if (leave) {
            ready.upkeep().leaveQueue(row.key(), queuedChannel); // in the background, as the caller's wait is over
        }
    }
}
