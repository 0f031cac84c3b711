package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Locks as rows of a {@link LockTable}. A database has no way to wake a waiter, so waiters poll
 * with {@link Backoff}, holding no connection between polls.
 */
final class JdbcLockBackend implements LockBackend<JdbcLease> {

    /** The width of the lock_key column, in characters. */
    static final int MAX_KEY_LENGTH = 255;

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

    @Override
    public Optional<JdbcLease> tryAcquire(LockRequest request) throws InterruptedException {
        String key = request.key();
        String owner = request.owner().value();
        Deadline deadline = request.deadline();
        boolean rowExists = table.takeInserts();
        for (int attempt = 1; ; attempt++) {
            int timeout = timeoutSeconds(request.leaseTime(), deadline);
            long requestedAt = System.nanoTime();
            OptionalLong fence = table.take(key, owner, request.leaseTime(), timeout);
            if (fence.isEmpty() && !rowExists) {
                requestedAt = System.nanoTime();
                if (table.insert(key, owner, request.leaseTime(), timeout)) {
                    fence = OptionalLong.of(1);
                } else {
                    rowExists = true;
                }
            }
            if (fence.isPresent()) {
                return Optional.of(new JdbcLease(key, owner, FencingToken.of(fence.getAsLong()), requestedAt));
            }
            if (deadline.hasPassed()) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(backoff.pauseNanos(attempt), deadline.remainingNanos()));
        }
    }

    @Override
    public boolean renew(JdbcLease lease, Duration leaseTime) {
        return table.renew(lease.key(), lease.owner(), leaseTime, timeoutSeconds(leaseTime, Deadline.never()));
    }

    @Override
    public boolean release(JdbcLease lease) {
        return table.release(lease.key(), lease.owner(), 5);
    }

    /**
     * A statement slower than the lease or the rest of the wait is of no use: its answer would
     * come too late. JDBC counts query timeouts in whole seconds, so at least one.
     */
    private static int timeoutSeconds(Duration leaseTime, Deadline deadline) {
        long nanos = Math.min(leaseTime.toNanos(), deadline.remainingNanos());
        return (int) Math.max(1, Math.min(60, TimeUnit.NANOSECONDS.toSeconds(nanos + 999_999_999)));
    }
}
