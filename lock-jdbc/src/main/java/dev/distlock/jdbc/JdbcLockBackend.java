package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * Locks as rows of a {@link LockTable}. Waiters poll, and pause until the {@link ReleaseSignals}
 * say the key was released, holding no connection. The {@link TableUpkeep} removes rows nobody released.
 */
final class JdbcLockBackend implements LockBackend<JdbcLease> {

    static final String NAME = "jdbc";

    /** The width of the lock_key column, in characters. */
    static final int MAX_KEY_LENGTH = 255;

    /** The longest any one lock statement waits. A longer wait polls again. */
    private static final Duration MAX_STATEMENT_WAIT = Duration.ofSeconds(60);

    /** The least wait for a pooled connection of a renewal or a release. */
    private static final Duration UPKEEP_CONNECTION_FLOOR = Duration.ofSeconds(1);

    /** The bound of an operator's call (who holds a key, force-release). */
    private static final Duration OPERATOR_CALL = Duration.ofSeconds(5);

    /** Pauses between attempts while the database is unavailable. */
    static final Backoff RIDE_OUT = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1));

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
     * Polls until the row is taken or the deadline passes, riding out an unavailable database and
     * adopting or withdrawing a take whose answer was lost (see {@link RowAttempt} and
     * docs/internals/backends.md).
     */
    @Override
    public Optional<JdbcLease> tryAcquire(LockRequest request) throws InterruptedException {
        return new RowAttempt(setup, request, answerBudget).run();
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
        setup.ready(LockDatabase.NO_KEY, call).schema().verify(call);
    }

    @Override
    public void close() {
        setup.close();
    }

    /** The lock table, set up first if no call has yet. */
    private LockTable table(String key, CallTimeout timeout) {
        return setup.ready(key, timeout).table();
    }

    /** How far the builder's clock was ahead of the database's when the table was set up. */
    Duration clockOffset(Duration timeout) {
        return setup.ready(LockDatabase.NO_KEY, CallTimeout.of(timeout)).clockOffset();
    }

    /** The database, connected if no call has yet. */
    LockDatabase database(String key, CallTimeout timeout) {
        return setup.database(key, timeout);
    }

    /**
     * The bound of one attempt to acquire, the deadline and at most the lease, plus the answer
     * budget. A statement slower than the lease is of no use.
     */
    static CallTimeout attemptTimeout(Deadline deadline, Duration leaseTime, Duration answerBudget) {
        return CallTimeout.until(deadline, min(leaseTime, MAX_STATEMENT_WAIT)).withAnswerBudget(answerBudget);
    }

    /** The bound of a first call's set-up, not capped by the lease, which counts from the take after it. */
    static CallTimeout setUpTimeout(Deadline deadline, Duration answerBudget) {
        return CallTimeout.until(deadline, MAX_STATEMENT_WAIT).withAnswerBudget(answerBudget);
    }

    /**
     * The bound of a renewal or release. It waits for a pooled connection at least {@link
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
