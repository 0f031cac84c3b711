package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.OwnerId;
import dev.distlock.core.spi.ReadWriteOwners;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The decisions on the read/write table ({@code <lock table>_rw}). Each decision on a key runs in
 * one short transaction that first locks the key's anchor row, so it sees every hold and waiting
 * writer of the key. Times are the database's clock in microseconds.
 */
final class JdbcReadWriteTable {

    private static final int DEADLOCK_TRIES = 3;

    private final LockTableSetup setup;
    private final ReadWriteSchema schema;
    private final Withdrawals withdrawals;

    JdbcReadWriteTable(LockTableSetup setup, String lockTable, boolean initializeSchema) {
        this.setup = setup;
        this.schema = new ReadWriteSchema(setup, lockTable, initializeSchema);
        this.withdrawals = setup.withdrawals();
    }

    /** How a waiter of {@code key} learns of releases and withdrawals. Only PostgreSQL notifies. */
    ReleaseSignals signals(String key, CallTimeout timeout) {
        return setup.signals(checked(key, timeout).db());
    }

    String address() {
        return schema.address();
    }

    /** Connects and checks (or creates) the table if no call has yet. */
    void ready(String key, CallTimeout timeout) {
        checked(key, timeout);
    }

    /** Frees what acquisitions that gave up may have taken, in the background when need be. */
    Withdrawals withdrawals() {
        return withdrawals;
    }

    /**
     * One decision. It takes the key for the owner when the rules allow, and otherwise records a
     * waiting writer's intent, so that new readers queue behind it.
     *
     * @return the token, or 0 when not granted or the anchor row stayed locked
     * @throws DatabaseUnavailableException when the database was unavailable. The decision may have
     *     committed, and a later one of the same owner adopts its hold
     * @throws LockBackendException when the database failed otherwise
     */
    long attempt(ReadWriteTake take, CallTimeout timeout) {
        String key = take.key();
        for (int round = 1; ; round++) {
            Long token;
            try {
                token = inTransaction(key, timeout, rows -> decide(rows, take));
            } catch (LockStatementTimeoutException busy) {
                return 0;
            }
            if (token != null) {
                return token;
            }
            if (round > 1 && timeout.deadline().hasPassed()) {
                return 0; // the anchor keeps going away under releases
            }
            // A transaction of its own, as MySQL's gap locks would deadlock two that found no anchor.
            autoCommitted(key, timeout, rows -> {
                rows.insertAnchor(key);
                return null;
            });
        }
    }

    /** The decision under the anchor's lock. Null when the key has no anchor row yet. */
    private static Long decide(ReadWriteRows rows, ReadWriteTake take) throws SQLException {
        String key = take.key();
        LockMode mode = take.mode();
        OwnerId owner = take.owner();
        ReadWriteStatements s = rows.sql();
        long[] anchor = rows.lockAnchor(key);
        if (anchor == null) {
            return null;
        }
        long fence = anchor[0];
        long now = anchor[1];
        rows.update(s.deleteExpired, key, now);
        ReadWriteRows.Holds holds = rows.holds(key, owner.value());
        // A live row of this owner is a lost answer's of this call, adopted so it never holds twice.
        long own = mode == LockMode.READ ? holds.ownRead() : holds.ownWrite();
        if (own > 0) {
            rows.update(s.deleteIntent, key, owner.value());
            return own;
        }
        if (mode == LockMode.READ) {
            if (!ReadWriteOwners.mayRead(holds.writer(), holds.writerWaiting(), owner)) {
                return 0L;
            }
            long token = fence > 0 ? fence : now;
            if (fence <= 0) {
                rows.update(s.setFence, token, key);
            }
            rows.insert(new ReadWriteRows.Row(key, owner.value(), 'r', now + take.leaseMicros(), token, take.holder()));
            return token;
        }
        rows.update(s.deleteIntent, key, owner.value());
        if (holds.writer() != null || holds.readers()) {
            if (take.intentMicros() > 0) {
                rows.insert(
                        new ReadWriteRows.Row(key, owner.value(), 'q', now + take.intentMicros(), 0, take.holder()));
            }
            return 0L;
        }
        // As for the plain lock, so tokens keep rising after the rows went.
        long token = Math.max(fence + 1, now);
        rows.update(s.setFence, token, key);
        rows.insert(new ReadWriteRows.Row(key, owner.value(), 'w', now + take.leaseMicros(), token, take.holder()));
        return token;
    }

    boolean renew(String key, LockMode mode, String owner, long leaseMicros, CallTimeout timeout) {
        return autoCommitted(
                key,
                timeout,
                rows -> rows.update(rows.sql().renew, leaseMicros, key, owner, ReadWriteRows.code(mode)) == 1);
    }

    /**
     * Ends the hold, and the key's rows when it was the last. A write release signals every waiter. A
     * read release that leaves only a writer's intent signals the waiting writers.
     */
    boolean release(String key, LockMode mode, String owner, CallTimeout timeout) {
        String code = ReadWriteRows.code(mode);
        return inTransaction(key, timeout, rows -> {
            ReadWriteStatements s = rows.sql();
            long[] anchor = rows.lockAnchor(key);
            if (anchor == null) {
                // No anchor, so no live hold, at most a leftover row of an expired one.
                rows.update(s.deleteHold, key, owner, code);
                return false;
            }
            long now = anchor[1];
            boolean live = rows.update(s.deleteLiveHold, key, owner, code, now) == 1;
            if (!live) {
                rows.update(s.deleteHold, key, owner, code);
            }
            boolean others = rows.hasLiveRows(key, now);
            if (anchor[0] < now && !others) {
                rows.update(s.deleteKey, key);
            }
            if (mode == LockMode.WRITE) {
                rows.signalReleasedToBoth(key);
            } else if (others && !rows.hasLiveHolds(key, now)) {
                rows.signalReleased(key, LockMode.WRITE);
            }
            return live;
        });
    }

    /** Withdraws a waiting writer's intent and signals the readers queued behind it. */
    void withdraw(String key, String owner, CallTimeout timeout) {
        autoCommitted(key, timeout, rows -> {
            if (rows.update(rows.sql().deleteIntent, key, owner) > 0) {
                rows.signalReleased(key, LockMode.READ);
            }
            return null;
        });
    }

    @FunctionalInterface
    private interface RowsWork<T> {
        T run(ReadWriteRows rows) throws SQLException;
    }

    /** Runs {@code work} in one transaction, again when the database chose it as a deadlock victim. */
    private <T> T inTransaction(String key, CallTimeout timeout, RowsWork<T> work) {
        ReadWriteSchema.Checked table = checked(key, timeout);
        for (int attempt = 1; ; attempt++) {
            try {
                return table.db().transaction(timeout, connection -> work.run(rows(table, connection, timeout)));
            } catch (SQLException e) {
                if (!ReadWriteRows.isDeadlock(e) || attempt == DEADLOCK_TRIES) {
                    throw failed(table.db(), key, e);
                }
            }
        }
    }

    /** Runs {@code work} as the pool's connections run statements, usually auto-committed. */
    private <T> T autoCommitted(String key, CallTimeout timeout, RowsWork<T> work) {
        ReadWriteSchema.Checked table = checked(key, timeout);
        try {
            return table.db().call(timeout, connection -> work.run(rows(table, connection, timeout)));
        } catch (SQLException e) {
            throw failed(table.db(), key, e);
        }
    }

    private ReadWriteSchema.Checked checked(String key, CallTimeout timeout) {
        try {
            return schema.checked(key, timeout);
        } catch (SQLException e) {
            throw failed(NOT_CONNECTED, key, e);
        }
    }

    private static ReadWriteRows rows(ReadWriteSchema.Checked table, Connection connection, CallTimeout t) {
        return new ReadWriteRows(connection, table.sql(), table.db().dialect, t);
    }

    /** The database of a failure before the table was checked, whose dialect is not known yet. */
    private static final LockDatabase NOT_CONNECTED = null;

    private LockBackendException failed(LockDatabase db, String key, SQLException e) {
        String what = "the read/write lock statement on table " + schema.tableName();
        if (db != null && db.dialect.gaveUpWaiting(e)) {
            return new LockStatementTimeoutException(
                    db.address,
                    key,
                    what + " gave up waiting and was rolled back (SQLState " + e.getSQLState() + "): " + e.getMessage()
                            + ". Another transaction held the key's rows, or the database was too slow.",
                    e);
        }
        String problem = what + " failed (SQLState " + e.getSQLState() + "): " + e.getMessage()
                + ". Check that the database is reachable and the table exists ("
                + "DDL in lock-jdbc's dev/distlock/jdbc/schema-rw-*.sql).";
        if (e instanceof ConnectionSource.NoConnection || LockDatabase.unavailable(e)) {
            return new DatabaseUnavailableException(address(), key, problem, e);
        }
        return new LockBackendException(JdbcLockBackend.NAME, address(), key, problem, e);
    }
}
