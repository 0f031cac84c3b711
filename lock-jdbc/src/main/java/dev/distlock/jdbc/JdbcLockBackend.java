package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
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

    /** The bound of an operator's call (who holds a key, force-release). */
    private static final Duration OPERATOR_CALL = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    private final LockDatabase db;
    private final LockTable table;
    private final LockSchema schema;
    private final ReleaseSignals signals;
    private final TableUpkeep upkeep;

    JdbcLockBackend(LockDatabase db, LockTable table, ReleaseSignals signals, Duration sweepInterval) {
        this.db = db;
        this.table = table;
        this.schema = new LockSchema(db);
        this.signals = signals;
        this.upkeep = new TableUpkeep(table, db.address, sweepInterval);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String address() {
        return db.address + " table " + db.table;
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    /**
     * Polls until the row is taken or the deadline passes. No attempt starts after the deadline,
     * and the database ends each statement's row lock wait near it; that counts as "not free".
     * When a statement fails otherwise, it may have taken the row before its answer was lost, so
     * the attempt's row is freed before the failure is thrown (see {@link TableUpkeep#free}).
     */
    @Override
    public Optional<JdbcLease> tryAcquire(LockRequest request) throws InterruptedException {
        Attempt attempt = Attempt.of(request);
        Deadline deadline = request.deadline();
        ReleaseSignals.Subscription released = null;
        try {
            for (int poll = 0; ; ) {
                // A statement slower than the lease is of no use: the lease would be over when it answered.
                CallTimeout timeout = CallTimeout.until(deadline, min(request.leaseTime(), MAX_STATEMENT_WAIT));
                long requestedAt = System.nanoTime();
                OptionalLong fence = take(attempt, timeout, deadline);
                if (fence.isPresent()) {
                    return Optional.of(new JdbcLease(
                            attempt.key(),
                            attempt.owner(),
                            FencingToken.of(fence.getAsLong()),
                            requestedAt,
                            request.leaseTime()));
                }
                if (deadline.hasPassed()) {
                    return Optional.empty();
                }
                if (released == null) {
                    // Listen before the next poll, so that a release between the two is not missed.
                    released = signals.subscribe(attempt.key());
                    continue;
                }
                released.await(Math.min(signals.backoff().pauseNanos(++poll), deadline.remainingNanos()));
            }
        } finally {
            if (released != null) {
                released.close();
            }
        }
    }

    private OptionalLong take(Attempt attempt, CallTimeout timeout, Deadline deadline) {
        try {
            return table.take(attempt, timeout);
        } catch (LockStatementTimeoutException busy) {
            log.debug("Lock statement for '{}' gave up waiting; the row counts as taken", attempt.key(), busy);
            return OptionalLong.empty();
        } catch (RuntimeException unknown) {
            upkeep.free(attempt, deadline, unknown);
            throw unknown;
        }
    }

    /** Bounded by a third of the lease, so that a renewal that hangs leaves the watchdog time to retry. */
    @Override
    public boolean renew(JdbcLease lease, Duration leaseTime) {
        return table.renew(lease.key(), lease.owner(), leaseTime, upkeepTimeout(leaseTime));
    }

    @Override
    public boolean release(JdbcLease lease) {
        return table.release(lease.key(), lease.owner(), upkeepTimeout(lease.leaseTime()));
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return table.holder(key, CallTimeout.of(OPERATOR_CALL))
                .map(row -> new LockHolder(
                        key,
                        row.holder() == null ? "" : row.holder(),
                        FencingToken.of(row.fence()),
                        Optional.of(row.leaseLeft())));
    }

    @Override
    public boolean forceRelease(String key) {
        return table.forceRelease(key, CallTimeout.of(OPERATOR_CALL));
    }

    @Override
    public void verify(Duration timeout) {
        schema.verify(timeout);
    }

    @Override
    public void close() {
        signals.close();
        upkeep.close();
    }

    LockSchema schema() {
        return schema;
    }

    LockTable table() {
        return table;
    }

    private static CallTimeout upkeepTimeout(Duration leaseTime) {
        return CallTimeout.of(min(leaseTime.dividedBy(3), MAX_STATEMENT_WAIT));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
