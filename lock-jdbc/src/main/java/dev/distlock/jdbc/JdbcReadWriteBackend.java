package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.WriterGrace;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One side (read or write) of JDBC read/write locks over {@link JdbcReadWriteTable}. Waiters poll
 * with capped, jittered back-off; a waiting writer's intent is refreshed with every poll and
 * withdrawn when it stops waiting.
 */
final class JdbcReadWriteBackend implements LockBackend<JdbcReadWriteBackend.Lease> {

    /** How long a waiting writer holds new readers back without refreshing its intent (each poll does). */
    static final Duration INTENT = Duration.ofSeconds(3);

    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final JdbcReadWriteTable table;
    private final LockMode mode;
    /** The writer's grace; zero on the read side. */
    private final Duration writerGrace;

    private final Duration answerBudget;

    JdbcReadWriteBackend(JdbcReadWriteTable table, LockMode mode, Duration writerGrace, Duration answerBudget) {
        this.table = table;
        this.mode = mode;
        this.writerGrace = writerGrace;
        this.answerBudget = answerBudget;
    }

    /**
     * Read/write locks in the table beside the lock table, on the same database connected on first
     * use, the table checked (or created) on first use.
     */
    static ReadWriteLocks locks(LockTableSetup setup, boolean initializeSchema, RegistryOptions options) {
        JdbcReadWriteTable table =
                new JdbcReadWriteTable(setup, setup.tableName().value(), initializeSchema);
        return new ReadWriteLocks(
                new JdbcReadWriteBackend(
                        table,
                        LockMode.WRITE,
                        options.writerGraceOr(RegistryOptions.DEFAULT_WRITER_GRACE),
                        options.answerBudget()),
                new JdbcReadWriteBackend(table, LockMode.READ, Duration.ZERO, options.answerBudget()),
                options);
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public String address() {
        return table.address();
    }

    @Override
    public int maxKeyLength() {
        return JdbcLockBackend.MAX_KEY_LENGTH;
    }

    /**
     * Decides again until granted or the deadline passes: on PostgreSQL when a release or a withdrawn
     * intent of the key is notified (the pauses of {@link ReleaseSignals} as a safety net), elsewhere
     * after pauses of 5 to 100 ms. Each decision is bounded like the plain lock's attempts (see
     * {@link CallTimeout}), so no call outlives its wait time by more than their slack.
     * A waiting writer decides without an intent during its grace (new readers still get in), and each pause ends
     * when the grace does, so that its intent is in place as soon as the grace is over; a waiting writer that gives
     * up withdraws its intent, unless the database just failed it.
     *
     * <p>While the wait lasts, an unavailable database (see {@link DatabaseUnavailableException}) is
     * ridden out as the plain lock rides it out: tried again after pauses from {@link
     * JdbcLockBackend#RIDE_OUT}, failing with the last failure once the deadline has passed (at once
     * for a zero wait). A decision whose answer was lost may have written this owner's hold; the next
     * decision adopts it (its lease counted from before the lost one), and a call that gives up frees
     * it, and a writer's intent, through {@link LostTakes}.
     */
    @Override
    public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        Deadline deadline = request.deadline();
        long intent = mode == LockMode.WRITE && !deadline.hasPassed() ? micros(INTENT) : 0;
        WriterGrace grace = WriterGrace.start(writerGrace);
        long pause = FIRST_POLL_NANOS;
        boolean withdraw = false;
        boolean unsure = false; // a decision's answer was lost: it may hold or queue for this call
        long unsureSince = 0;
        int failures = 0;
        int polls = 0;
        ReleaseSignals signals = null;
        ReleaseSignals.Subscription released = null;
        try {
            while (true) {
                CallTimeout timeout = JdbcLockBackend.attemptTimeout(deadline, request.leaseTime(), answerBudget);
                long requestedAt = 0; // when this round's decision was sent; the table's check comes first
                boolean sent = false;
                long token;
                long offered = grace.isOpen() ? 0 : intent;
                withdraw |= offered > 0;
                try {
                    ready(request, JdbcLockBackend.setUpTimeout(deadline, answerBudget));
                    requestedAt = System.nanoTime();
                    sent = true;
                    token = attempt(request, offered, timeout);
                } catch (DatabaseUnavailableException e) {
                    if (sent && !unsure) {
                        unsure = true;
                        unsureSince = requestedAt;
                    }
                    if (!deadline.hasPassed()) {
                        TimeUnit.NANOSECONDS.sleep(
                                Math.min(JdbcLockBackend.RIDE_OUT.pauseNanos(++failures), deadline.remainingNanos()));
                    }
                    if (deadline.hasPassed()) {
                        withdraw = false;
                        table.lostTakes()
                                .free(request.key(), micros(request.leaseTime()), deadline, e, release(request));
                        throw e;
                    }
                    continue;
                }
                if (token > 0) {
                    withdraw = false;
                    return Optional.of(new Lease(
                            request.key(),
                            request.owner().value(),
                            FencingToken.of(token),
                            unsure ? unsureSince : requestedAt,
                            request.leaseTime()));
                }
                if (deadline.hasPassed()) {
                    if (unsure) {
                        freeLater(request); // a lost decision could still commit
                    }
                    return Optional.empty();
                }
                if (released == null) {
                    // Listen before the next decision, so that a release between the two is not missed.
                    signals = table.signals(request.key(), timeout);
                    released = signals.subscribe(ReadWriteStatements.signalKey(request.key(), mode));
                    continue;
                }
                Backoff pauses = signals.backoff();
                long wait;
                if (pauses == ReleaseSignals.POLLING) {
                    // Nothing signals releases here: polls, with jitter so that waiters spread out.
                    wait = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
                    pause = Math.min(MAX_POLL_NANOS, pause * 2);
                } else {
                    wait = pauses.pauseNanos(++polls);
                }
                released.await(grace.cap(Math.min(wait, deadline.remainingNanos())));
            }
        } catch (InterruptedException e) {
            if (unsure) {
                freeLater(request);
            }
            throw e;
        } catch (RuntimeException e) {
            // A database that failed the attempt would most likely fail the withdrawal too, after
            // another timeout; the intent ends by itself (at most INTENT).
            if (unsure && !(e instanceof DatabaseUnavailableException)) {
                freeLater(request);
            }
            withdraw = false;
            throw e;
        } finally {
            if (released != null) {
                released.close();
            }
            if (withdraw) {
                withdrawQuietly(request, deadline);
            }
        }
    }

    /** In the background: what a lost decision of this call may have written. */
    private void freeLater(LockRequest request) {
        table.lostTakes().freeLater(request.key(), micros(request.leaseTime()), release(request));
    }

    /** Deletes this call's hold and, for a writer, its intent; touches no other owner's rows. */
    private LostTakes.Release release(LockRequest request) {
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
    private void ready(LockRequest request, CallTimeout timeout) throws InterruptedException {
        try {
            table.ready(request.key(), timeout);
        } catch (RuntimeException e) {
            throw interruptedOr(request, e);
        }
    }

    private long attempt(LockRequest request, long intent, CallTimeout timeout) throws InterruptedException {
        try {
            return table.attempt(
                    request.key(),
                    mode,
                    request.owner(),
                    micros(request.leaseTime()),
                    intent,
                    request.holder(),
                    timeout);
        } catch (RuntimeException e) {
            throw interruptedOr(request, e);
        }
    }

    private RuntimeException interruptedOr(LockRequest request, RuntimeException e) throws InterruptedException {
        if (Thread.interrupted()) {
            // The driver gave up its statement because of the interrupt; what it did was rolled back.
            throw new InterruptedException(
                    "Interrupted while acquiring lock '" + request.key() + "' on " + table.address());
        }
        return e;
    }

    /** A failed withdrawal must not hide why the wait ended; the intent then ends by itself. */
    private void withdrawQuietly(LockRequest request, Deadline deadline) {
        try {
            table.withdraw(request.key(), request.owner().value(), CallTimeout.until(deadline, INTENT));
        } catch (RuntimeException e) {
            // Readers queue behind the intent until it ends (at most INTENT).
        }
    }

    @Override
    public boolean renew(Lease lease, Duration leaseTime) {
        return table.renew(
                lease.key(), mode, lease.owner(), micros(leaseTime), JdbcLockBackend.upkeepTimeout(leaseTime));
    }

    @Override
    public boolean release(Lease lease) {
        return table.release(lease.key(), mode, lease.owner(), JdbcLockBackend.upkeepTimeout(lease.leaseTime()));
    }

    /** A lease in whole microseconds for the database, rounded up (the engine's view rounds down). */
    private static long micros(Duration lease) {
        if (lease.getSeconds() > 3_000_000_000L) {
            return 3_000_000_000L * 1_000_000; // about 95 years: "forever" without overflowing the column
        }
        long micros = lease.toNanos() / 1000 + (lease.toNanos() % 1000 == 0 ? 0 : 1);
        return Math.max(1, micros);
    }

    /** A read or write hold in the table. */
    record Lease(String key, String owner, FencingToken token, long grantRequestedAtNanos, Duration leaseTime)
            implements BackendLease {}
}
