package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lock operations on the table, each one call in the database's dialect. A row exists while
 * its key is held, and a release deletes it.
 */
final class LockTable {

    private final LockDatabase db;
    private final Dialect dialect;

    LockTable(LockDatabase db) {
        this.db = db;
        this.dialect = db.dialect;
    }

    /**
     * Takes the key's row if it is free, expired or missing, and returns the new fence. When refused,
     * the registry takes its place in the key's {@code queue}, where the database keeps one.
     */
    OptionalLong take(LockRow row, WaitQueue queue, CallTimeout timeout) {
        return db.run(row.key(), timeout, connection -> dialect.take(connection, row, queue, timeout));
    }

    /**
     * Takes {@code channel} (if not null) off the key's queue and wakes the next registry in it if
     * the key is free. For a registry whose waiters gave up, or that was woken when none waited.
     */
    void passOn(String key, String channel, CallTimeout timeout) {
        if (dialect instanceof PostgresDialect postgres) {
            db.run(key, timeout, connection -> {
                postgres.passOn(connection, key, channel, timeout);
                return null;
            });
        }
    }

    /** The fence of the key's row if {@code row}'s owner holds it unexpired, as a lost take may have left it. */
    OptionalLong mine(LockRow row, CallTimeout timeout) {
        return db.run(row.key(), timeout, connection -> {
            try (PreparedStatement statement = dialect.prepare(connection, dialect.mine, timeout)) {
                statement.setString(1, row.key());
                statement.setString(2, row.owner());
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        });
    }

    /** Extends the lease from the database's now, if {@code owner} still holds an unexpired lease. */
    boolean renew(String key, String owner, Duration lease, CallTimeout timeout) {
        long micros = LockRow.leaseMicros(lease);
        return db.run(key, timeout, c -> db.affected(c, dialect.renew, timeout, micros, key, owner) == 1);
    }

    /** Frees whatever row {@code owner} has of the key, live or expired. True when it had one. */
    boolean freeLost(String key, String owner, CallTimeout timeout) {
        return db.run(key, timeout, connection -> freeOwn(connection, timeout, key, owner) != Freed.NONE);
    }

    /**
     * Frees the key if {@code owner} holds it. Returns false when its lease had already run out. An
     * expired row still marked with the owner is freed as well, for the sweep.
     */
    boolean release(String key, String owner, CallTimeout timeout) {
        return db.run(key, timeout, connection -> freeOwn(connection, timeout, key, owner) == Freed.LIVE);
    }

    /** What freeing an owner's row found. */
    private enum Freed {
        LIVE,
        EXPIRED,
        NONE
    }

    /** Frees {@code owner}'s row of the key, live as a release does, or expired and still marked. */
    private Freed freeOwn(Connection connection, CallTimeout timeout, String key, String owner) throws SQLException {
        if (free(connection, dialect.deleteLive, dialect.clearLive, timeout, key, owner)) {
            return Freed.LIVE;
        }
        return db.affected(connection, dialect.clearOwn, timeout, key, owner) > 0 ? Freed.EXPIRED : Freed.NONE;
    }

    /** Frees the key whoever holds it. True when a live lock was there. */
    boolean forceRelease(String key, CallTimeout timeout) {
        return db.run(key, timeout, c -> free(c, dialect.forceDelete, dialect.forceClear, timeout, key));
    }

    /** Deletes the row once the clock has passed its fence, else clears its owner. */
    private boolean free(Connection connection, String delete, String clear, CallTimeout timeout, Object... key)
            throws SQLException {
        return db.affected(connection, delete, timeout, key) == 1 || db.affected(connection, clear, timeout, key) == 1;
    }

    /** The live holder of the key, if any. */
    Optional<HolderRow> holder(String key, CallTimeout timeout) {
        return db.run(key, timeout, connection -> {
            try (PreparedStatement statement = dialect.prepare(connection, dialect.holder, timeout)) {
                statement.setString(1, key);
                try (ResultSet rs = statement.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(
                            new HolderRow(rs.getString(1), rs.getLong(2), Duration.ofNanos(rs.getLong(3) * 1000)));
                }
            }
        });
    }

    /** Deletes up to {@code rows} rows that are free or expired and whose fence the clock has passed. */
    int sweep(int rows, CallTimeout timeout) {
        return db.run(LockDatabase.NO_KEY, timeout, c -> db.affected(c, dialect.sweep, timeout, rows));
    }

    /** The database's current time, for reports of how far a JVM's clock is off. */
    Instant databaseNow(CallTimeout timeout) {
        return db.run(LockDatabase.NO_KEY, timeout, connection -> {
            try (PreparedStatement statement = dialect.prepare(connection, dialect.now, timeout);
                    ResultSet rs = statement.executeQuery()) {
                rs.next();
                return dialect.readNow(rs);
            }
        });
    }

    /** A held row as an operator sees it. */
    record HolderRow(String holder, long fence, Duration leaseLeft) {}
}
