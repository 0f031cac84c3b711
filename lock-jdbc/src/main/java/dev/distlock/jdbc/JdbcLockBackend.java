package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as rows of a {@link LockTable}. Waiters poll, pausing between polls until the {@link
 * ReleaseSignals} of the database say the key was released or the pause is over; they hold no
 * connection in between. Rows that nobody released are removed by the {@link TableUpkeep}.
 */
final class JdbcLockBackend implements LockBackend<JdbcLease> {

    static final String NAME = "jdbc";

    /** The width of the lock_key column, in characters. */
    static final int MAX_KEY_LENGTH = 255;

    /** The longest any one lock statement waits; a longer wait polls again. */
    private static final Duration MAX_STATEMENT_WAIT = Duration.ofSeconds(60);

    /** The least wait for a pooled connection of a renewal or a release. */
    private static final Duration UPKEEP_CONNECTION_FLOOR = Duration.ofSeconds(1);

    /** The bound of an operator's call (who holds a key, force-release). */
    private static final Duration OPERATOR_CALL = Duration.ofSeconds(5);

    /** Pauses between attempts while the database is unavailable. */
    static final Backoff RIDE_OUT = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1));

    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    private final LockTableSetup setup;
    private final Duration answerBudget;

    JdbcLockBackend(LockTableSetup setup) {
        this(setup, RegistryOptions.DEFAULT_ANSWER_BUDGET);
    }

    JdbcLockBackend(LockTableSetup setup, Duration answerBudget) {
        this.setup = setup;
        this.answerBudget = answerBudget;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String address() {
        return setup.address() + " table " + setup.tableName();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    /**
     * Polls until the row is taken or the deadline passes. No attempt starts after the deadline,
     * and the database ends each statement's row lock wait near it; that counts as "not free". The
     * first call sets the table up (see {@link LockTableSetup}) within its wait time.
     *
     * <p>While the wait lasts, an unavailable database (see {@link DatabaseUnavailableException}) is
     * ridden out: the attempt is repeated after a pause that grows from {@link #RIDE_OUT}'s first to
     * its last, and the call fails with the last failure once the deadline has passed (at once for
     * a zero wait). A take whose answer was lost may have taken the row; until the call ends, its
     * row is looked for by its owner (unique per hold) before and after each take, and adopted when
     * found, its lease counted from before the first take whose answer was lost. When the call
     * fails, or any other failure ends it, the row the attempt may have taken is freed (see {@link
     * TableUpkeep#free}).
     */
    @Override
    public Optional<JdbcLease> tryAcquire(LockRequest request) throws InterruptedException {
        LockRow row = LockRow.of(request);
        Deadline deadline = request.deadline();
        LockTableSetup.Ready ready = null;
        ReleaseSignals.Subscription released = null;
        String inLine = null; // the channel this attempt put in the key's line, until it leaves it
        boolean acquired = false;
        long unsureSince = 0; // when the first take whose answer was lost was sent
        boolean unsure = false;
        int failures = 0;
        try {
            for (int poll = 0; ; ) {
                CallTimeout timeout = attemptTimeout(deadline, request.leaseTime(), answerBudget);
                long requestedAt = 0; // when this round's take was sent; set-up and subscription come first
                boolean sent = false;
                OptionalLong fence;
                try {
                    if (ready == null) {
                        ready = setup.ready(row.key(), setUpTimeout(deadline, answerBudget));
                    }
                    if (released == null
                            && !deadline.hasPassed()
                            && ready.signals().wakesOne()) {
                        // A refused first attempt takes its place in line at once; that needs the ear first.
                        released = ready.signals().subscribe(row.key());
                    }
                    fence = unsure ? ready.table().mine(row, timeout) : OptionalLong.empty();
                    if (fence.isPresent()) {
                        requestedAt = unsureSince;
                    } else {
                        WaitLine line = released == null
                                ? WaitLine.NONE
                                : ready.signals().line(released);
                        if (line.channel() != null) {
                            inLine = line.channel();
                        }
                        requestedAt = System.nanoTime();
                        sent = true;
                        fence = take(ready, row, line, timeout, deadline, unsure);
                        if (fence.isEmpty() && unsure) {
                            // the lost take may have committed after the look before this one
                            fence = ready.table().mine(row, timeout);
                            requestedAt = unsureSince;
                        }
                    }
                } catch (DatabaseUnavailableException e) {
                    if (sent && !unsure) {
                        unsure = true;
                        unsureSince = requestedAt;
                    }
                    if (!deadline.hasPassed()) {
                        log.debug("The database is unavailable for '{}'; trying again within the wait", row.key(), e);
                        try {
                            TimeUnit.NANOSECONDS.sleep(
                                    Math.min(RIDE_OUT.pauseNanos(++failures), deadline.remainingNanos()));
                        } catch (InterruptedException interrupted) {
                            if (unsure) {
                                ready.upkeep().freeLater(row); // the lost take may hold the row
                            }
                            throw interrupted;
                        }
                    }
                    if (deadline.hasPassed()) {
                        if (unsure) {
                            ready.upkeep().free(row, deadline, e);
                        }
                        throw e;
                    }
                    continue;
                }
                if (fence.isPresent()) {
                    unsure = false;
                    acquired = true;
                    return Optional.of(new JdbcLease(
                            row.key(),
                            row.owner(),
                            FencingToken.of(fence.getAsLong()),
                            requestedAt,
                            request.leaseTime()));
                }
                if (deadline.hasPassed()) {
                    if (unsure) {
                        ready.upkeep().freeLater(row); // a lost take could still commit
                    }
                    return Optional.empty();
                }
                if (released == null) {
                    // Listen before the next poll, so that a release between the two is not missed.
                    released = ready.signals().subscribe(row.key());
                    continue;
                }
                released.await(Math.min(ready.signals().backoff().pauseNanos(++poll), deadline.remainingNanos()));
            }
        } finally {
            // A registry leaves the line with its last waiter of the key; a grant took it off already.
            boolean leave = inLine != null
                    && !acquired
                    && !ready.signals().line(released).stay();
            if (released != null) {
                released.close();
            }
            if (leave) {
                ready.upkeep().leaveLine(row.key(), inLine); // in the background: the caller's wait is over
            }
        }
    }

    /**
     * One take; a lost connection is thrown for the caller to ride out, any other failure frees
     * what the attempt may have taken before it is thrown.
     */
    private static OptionalLong take(
            LockTableSetup.Ready ready,
            LockRow row,
            WaitLine line,
            CallTimeout timeout,
            Deadline deadline,
            boolean unsure) {
        try {
            return ready.table().take(row, line, timeout);
        } catch (LockStatementTimeoutException busy) {
            log.debug("Lock statement for '{}' gave up waiting; the row counts as taken", row.key(), busy);
            return OptionalLong.empty();
        } catch (DatabaseUnavailableException unavailable) {
            throw unavailable;
        } catch (RuntimeException unknown) {
            ready.upkeep().free(row, deadline, unknown);
            throw unknown;
        }
    }

    /** Bounded by a third of the lease, so that a renewal that hangs leaves the watchdog time to retry. */
    @Override
    public boolean renew(JdbcLease lease, Duration leaseTime) {
        CallTimeout timeout = upkeepTimeout(leaseTime);
        return table(lease.key(), timeout).renew(lease.key(), lease.owner(), leaseTime, timeout);
    }

    @Override
    public boolean release(JdbcLease lease) {
        CallTimeout timeout = upkeepTimeout(lease.leaseTime());
        return table(lease.key(), timeout).release(lease.key(), lease.owner(), timeout);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        CallTimeout timeout = CallTimeout.of(OPERATOR_CALL);
        return table(key, timeout)
                .holder(key, timeout)
                .map(row -> new LockHolder(
                        key,
                        row.holder() == null ? "" : row.holder(),
                        FencingToken.of(row.fence()),
                        Optional.of(row.leaseLeft())));
    }

    @Override
    public boolean forceRelease(String key) {
        CallTimeout timeout = CallTimeout.of(OPERATOR_CALL);
        return table(key, timeout).forceRelease(key, timeout);
    }

    @Override
    public void verify(Duration timeout) {
        CallTimeout call = CallTimeout.of(timeout);
        setup.ready(null, call).schema().verify(call);
    }

    @Override
    public void close() {
        setup.close();
    }

    /** The lock table, set up first if no call has yet. */
    private LockTable table(String key, CallTimeout timeout) {
        return setup.ready(key, timeout).table();
    }

    /** How far the builder's clock was ahead of the database's when the table was set up (negative: behind). */
    Duration clockOffset(Duration timeout) {
        return setup.ready(null, CallTimeout.of(timeout)).clockOffset();
    }

    /** The database, connected if no call has yet. */
    LockDatabase database(String key, CallTimeout timeout) {
        return setup.database(key, timeout);
    }

    /**
     * The bound of one attempt to acquire: the deadline, and at most the lease (a statement slower
     * than the lease is of no use: the lease would be over when it answered), plus the answer budget.
     */
    static CallTimeout attemptTimeout(Deadline deadline, Duration leaseTime, Duration answerBudget) {
        return CallTimeout.until(deadline, min(leaseTime, MAX_STATEMENT_WAIT)).withAnswerBudget(answerBudget);
    }

    /**
     * The bound of a first call's set-up: not the lease, which counts from the take after it (a cold
     * registry's set-up may well be slower than the lease).
     */
    static CallTimeout setUpTimeout(Deadline deadline, Duration answerBudget) {
        return CallTimeout.until(deadline, MAX_STATEMENT_WAIT).withAnswerBudget(answerBudget);
    }

    /**
     * A renewal or release is nobody's wait: it waits for a pooled connection at least {@link
     * #UPKEEP_CONNECTION_FLOOR}, so that a short lease on a busy machine does not fail it.
     */
    static CallTimeout upkeepTimeout(Duration leaseTime) {
        return CallTimeout.of(min(leaseTime.dividedBy(3), MAX_STATEMENT_WAIT))
                .withConnectionFloor(UPKEEP_CONNECTION_FLOOR);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
