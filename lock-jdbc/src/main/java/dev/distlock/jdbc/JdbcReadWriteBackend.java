package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import java.time.Duration;
import java.util.Optional;

/**
 * One side (read or write) of JDBC read/write locks over {@link JdbcReadWriteTable}. Waiters poll
 * with capped, jittered back-off. A waiting writer's intent is refreshed by every poll.
 */
final class JdbcReadWriteBackend implements LockBackend<JdbcReadWriteBackend.Lease> {

    /** How long a waiting writer holds new readers back without refreshing its intent (each poll does). */
    static final Duration INTENT = Duration.ofSeconds(3);

    private final JdbcReadWriteTable table;
    private final LockMode mode;
    /** The writer's grace, zero on the read side. */
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
     * Decides again until granted or the deadline passes, woken by release signals or short polls. A
     * waiting writer's intent is withdrawn when it gives up (see {@link ReadWriteAttempt}).
     */
    @Override
    public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        return new ReadWriteAttempt(table, mode, writerGrace, answerBudget, request).run();
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
    static long micros(Duration lease) {
        if (lease.getSeconds() > 3_000_000_000L) {
            return 3_000_000_000L * 1_000_000; // about 95 years, "forever" without overflowing the column
        }
        long micros = lease.toNanos() / 1000 + (lease.toNanos() % 1000 == 0 ? 0 : 1);
        return Math.max(1, micros);
    }

    /** A read or write hold in the table. */
    record Lease(String key, String owner, FencingToken token, long grantRequestedAtNanos, Duration leaseTime)
            implements BackendLease {}
}
