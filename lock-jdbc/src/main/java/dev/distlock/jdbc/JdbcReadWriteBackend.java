package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.rw.LockMode;
import dev.distlock.core.rw.ReadWriteLocks;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

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

    JdbcReadWriteBackend(JdbcReadWriteTable table, LockMode mode) {
        this.table = table;
        this.mode = mode;
    }

    /** Read/write locks in the table beside {@code lockTable}, checked (or created) on first use. */
    static ReadWriteLocks locks(
            DataSource dataSource, String lockTable, boolean initializeSchema, RegistryOptions options) {
        JdbcReadWriteTable table = new JdbcReadWriteTable(dataSource, lockTable, initializeSchema);
        return new ReadWriteLocks(
                new JdbcReadWriteBackend(table, LockMode.WRITE),
                new JdbcReadWriteBackend(table, LockMode.READ),
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

    @Override
    public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        Deadline deadline = request.deadline();
        long intent = mode == LockMode.WRITE && !deadline.hasPassed() ? micros(INTENT) : 0;
        long pause = FIRST_POLL_NANOS;
        boolean granted = false;
        try {
            while (true) {
                long requestedAt = System.nanoTime();
                long token = attempt(request, intent);
                if (token > 0) {
                    granted = true;
                    return Optional.of(
                            new Lease(request.key(), request.owner().value(), FencingToken.of(token), requestedAt));
                }
                if (deadline.hasPassed()) {
                    return Optional.empty();
                }
                long jittered = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
                TimeUnit.NANOSECONDS.sleep(Math.min(jittered, deadline.remainingNanos()));
                pause = Math.min(MAX_POLL_NANOS, pause * 2);
            }
        } finally {
            if (!granted && intent > 0) {
                withdrawQuietly(request);
            }
        }
    }

    private long attempt(LockRequest request, long intent) throws InterruptedException {
        try {
            return table.attempt(
                    request.key(), mode, request.owner(), micros(request.leaseTime()), intent, request.holder());
        } catch (RuntimeException e) {
            if (Thread.interrupted()) {
                // The driver gave up its statement because of the interrupt; what it did was rolled back.
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + table.address());
            }
            throw e;
        }
    }

    /** A failed withdrawal must not hide why the wait ended; the intent then ends by itself. */
    private void withdrawQuietly(LockRequest request) {
        try {
            table.withdraw(request.key(), request.owner().value());
        } catch (RuntimeException e) {
            // Readers queue behind the intent until it ends (at most INTENT).
        }
    }

    @Override
    public boolean renew(Lease lease, Duration leaseTime) {
        return table.renew(lease.key(), mode, lease.owner(), micros(leaseTime));
    }

    @Override
    public boolean release(Lease lease) {
        return table.release(lease.key(), mode, lease.owner());
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
    record Lease(String key, String owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}
}
