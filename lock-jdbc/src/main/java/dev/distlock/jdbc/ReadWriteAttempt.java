package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WriterGrace;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition call on one side of the read/write table. It decides again until granted or the
 * deadline passes, and withdraws a waiting writer's intent when the writer stops waiting.
 */
final class ReadWriteAttempt {

    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final JdbcReadWriteTable table;
    private final LockMode mode;
    private final LockRequest request;
    private final Deadline deadline;
    private final Duration answerBudget;
    private final WriterGrace grace;
    /** The intent a waiting writer offers, in µs, or zero for a reader. */
    private final long intent;

    private long pause = FIRST_POLL_NANOS;
    private boolean withdrawIntent;
    /** Whether a decision's answer was lost, which may hold or queue for this call. */
    private boolean unsure;

    private long unsureSince;
    private int failures;
    private int polls;
    private ReleaseSignals signals;
    private ReleaseSignals.Subscription released;
    /** When this round's decision was sent, after the table's check. */
    private long requestedAt;

    private boolean sent;

    ReadWriteAttempt(
            JdbcReadWriteTable table, LockMode mode, Duration writerGrace, Duration answerBudget, LockRequest request) {
        this.table = table;
        this.mode = mode;
        this.request = request;
        this.deadline = request.deadline();
        this.answerBudget = answerBudget;
        this.grace = WriterGrace.start(writerGrace);
        this.intent = mode == LockMode.WRITE && !deadline.hasPassed()
                ? JdbcReadWriteBackend.micros(JdbcReadWriteBackend.INTENT)
                : 0;
    }

    /** Decides until granted or the deadline passes, as {@link JdbcReadWriteBackend#tryAcquire} says. */
    Optional<JdbcReadWriteBackend.Lease> run() throws InterruptedException {
        try {
            while (true) {
                CallTimeout timeout = JdbcLockBackend.attemptTimeout(deadline, request.leaseTime(), answerBudget);
                long token;
                try {
                    token = decideOnce(timeout);
                } catch (DatabaseUnavailableException e) {
                    rideOut(e);
                    continue;
                }
                if (token > 0) {
                    withdrawIntent = false;
                    return Optional.of(granted(token));
                }
                if (deadline.hasPassed()) {
                    if (unsure) {
                        withdrawLater(); // a lost decision could still commit
                    }
                    return Optional.empty();
                }
                awaitRelease(timeout);
            }
        } catch (InterruptedException e) {
            if (unsure) {
                withdrawLater();
            }
            throw e;
        } catch (RuntimeException e) {
            // The intent ends by itself. A failed database would fail its withdrawal too.
            if (unsure && !(e instanceof DatabaseUnavailableException)) {
                withdrawLater();
            }
            withdrawIntent = false;
            throw e;
        } finally {
            if (released != null) {
                released.close();
            }
            if (withdrawIntent) {
                withdrawIntentQuietly();
            }
        }
    }

    /** One decision, offering the writer's intent once its grace is over. Returns the token, or 0. */
    private long decideOnce(CallTimeout timeout) throws InterruptedException {
        requestedAt = 0;
        sent = false;
        long offered = grace.isOpen() ? 0 : intent;
        withdrawIntent |= offered > 0;
        ready(JdbcLockBackend.setUpTimeout(deadline, answerBudget));
        requestedAt = System.nanoTime();
        sent = true;
        return attempt(offered, timeout);
    }

    /** Pauses after an unavailable database while the wait lasts, and past the deadline withdraws and fails. */
    private void rideOut(DatabaseUnavailableException e) throws InterruptedException {
        if (sent && !unsure) {
            unsure = true;
            unsureSince = requestedAt;
        }
        if (!deadline.hasPassed()) {
            TimeUnit.NANOSECONDS.sleep(
                    Math.min(JdbcLockBackend.RIDE_OUT.pauseNanos(++failures), deadline.remainingNanos()));
        }
        if (deadline.hasPassed()) {
            withdrawIntent = false;
            table.withdrawals().withdraw(request.key(), leaseMicros(), deadline, e, release());
            throw e;
        }
    }

    private JdbcReadWriteBackend.Lease granted(long token) {
        return new JdbcReadWriteBackend.Lease(
                request.key(),
                request.owner().value(),
                FencingToken.of(token),
                unsure ? unsureSince : requestedAt,
                request.leaseTime());
    }

    /** Listens before the next decision, so that no release between the two is missed, then waits for one. */
    private void awaitRelease(CallTimeout timeout) throws InterruptedException {
        if (released == null) {
            signals = table.signals(request.key(), timeout);
            released = signals.subscribe(ReadWriteStatements.signalKey(request.key(), mode));
            return;
        }
        released.await(grace.cap(Math.min(nextPause(), deadline.remainingNanos())));
    }

    /** Where nothing signals releases, polls with jitter so that waiters spread out. */
    private long nextPause() {
        Backoff pauses = signals.backoff();
        if (pauses != ReleaseSignals.POLLING) {
            return pauses.pauseNanos(++polls);
        }
        long wait = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
        pause = Math.min(MAX_POLL_NANOS, pause * 2);
        return wait;
    }

    /** Withdraws in the background what a lost decision of this call may have written. */
    private void withdrawLater() {
        table.withdrawals().withdrawLater(request.key(), leaseMicros(), release());
    }

    /** Deletes this call's hold and, for a writer, its intent. */
    private Withdrawals.Release release() {
        String key = request.key();
        String owner = request.owner().value();
        return timeout -> {
            boolean found = table.release(key, mode, owner, timeout);
            if (mode == LockMode.WRITE) {
                table.withdraw(key, owner, timeout);
            }
            return found;
        };
    }

    /** The table connected and checked, before the first decision is sent. */
    private void ready(CallTimeout timeout) throws InterruptedException {
        try {
            table.ready(request.key(), timeout);
        } catch (RuntimeException e) {
            throw interruptedOr(e);
        }
    }

    private long attempt(long offeredIntent, CallTimeout timeout) throws InterruptedException {
        try {
            return table.attempt(
                    new ReadWriteTake(
                            request.key(), mode, request.owner(), leaseMicros(), offeredIntent, request.holder()),
                    timeout);
        } catch (RuntimeException e) {
            throw interruptedOr(e);
        }
    }

    private RuntimeException interruptedOr(RuntimeException e) throws InterruptedException {
        if (Thread.interrupted()) {
            // The driver gave up and rolled back its statement because of the interrupt.
            throw new InterruptedException(
                    "Interrupted while acquiring lock '" + request.key() + "' on " + table.address());
        }
        return e;
    }

    /** A failed withdrawal must not hide why the wait ended. The intent then ends by itself. */
    private void withdrawIntentQuietly() {
        try {
            table.withdraw(
                    request.key(), request.owner().value(), CallTimeout.until(deadline, JdbcReadWriteBackend.INTENT));
        } catch (RuntimeException e) {
            // Readers queue behind the intent until it ends (at most INTENT).
        }
    }

    private long leaseMicros() {
        return JdbcReadWriteBackend.micros(request.leaseTime());
    }
}
