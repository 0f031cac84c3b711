package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
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
 * Locks as rows of a {@link LockTable}. A database has no way to wake a waiter, so waiters poll
 * with {@link Backoff}, holding no connection between polls.
 */
final class JdbcLockBackend implements LockBackend<JdbcLease> {

    /** The width of the lock_key column, in characters. */
    static final int MAX_KEY_LENGTH = 255;

    /** The longest any one lock statement waits; a longer wait polls again. */
    private static final Duration MAX_STATEMENT_WAIT = Duration.ofSeconds(60);

    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    private final LockTable table;
    private final Backoff backoff;

    JdbcLockBackend(LockTable table, Backoff backoff) {
        this.table = table;
        this.backoff = backoff;
    }

    @Override
    public String name() {
        return LockTable.BACKEND;
    }

    @Override
    public String address() {
        return table.address() + " table " + table.table();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    /**
     * Polls until the row is taken or the deadline passes. No attempt starts after the deadline,
     * and each statement's query timeout is the time left (whole seconds, at least one), so a
     * statement blocked by another transaction's lock on the row is cancelled by the database and
     * rolled back near the deadline; that counts as "not free", not as a failure. A database that
     * does not answer at all fails with {@link dev.distlock.core.LockBackendException} once the
     * connection's network timeout (query timeout plus {@link CallTimeout#NETWORK_GRACE}) runs out.
     */
    @Override
    public Optional<JdbcLease> tryAcquire(LockRequest request) throws InterruptedException {
        String key = request.key();
        String owner = request.owner().value();
        Duration lease = request.leaseTime();
        Deadline deadline = request.deadline();
        boolean rowExists = table.takeInserts();
        for (int attempt = 1; ; attempt++) {
            // A statement slower than the lease is of no use: the lease would be over when it answered.
            CallTimeout timeout = CallTimeout.until(deadline, min(lease, MAX_STATEMENT_WAIT));
            try {
                long requestedAt = System.nanoTime();
                OptionalLong fence = table.take(key, owner, lease, timeout);
                if (fence.isEmpty() && !rowExists) {
                    requestedAt = System.nanoTime();
                    if (table.insert(key, owner, lease, timeout)) {
                        fence = OptionalLong.of(1);
                    } else {
                        rowExists = true;
                    }
                }
                if (fence.isPresent()) {
                    return Optional.of(
                            new JdbcLease(key, owner, FencingToken.of(fence.getAsLong()), requestedAt, lease));
                }
            } catch (LockStatementTimeoutException busy) {
                log.debug("Lock statement for '{}' gave up waiting; the row counts as taken", key, busy);
            }
            if (deadline.hasPassed()) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(backoff.pauseNanos(attempt), deadline.remainingNanos()));
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

    private static CallTimeout upkeepTimeout(Duration leaseTime) {
        return CallTimeout.of(min(leaseTime.dividedBy(3), MAX_STATEMENT_WAIT));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
