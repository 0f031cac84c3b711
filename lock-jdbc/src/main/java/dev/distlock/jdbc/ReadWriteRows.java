package dev.distlock.jdbc;

import dev.distlock.core.spi.LockMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The row operations of one call on the read/write table, each statement bounded by the call's
 * {@link CallTimeout}. The database ends the wait for the anchor row where it can.
 */
final class ReadWriteRows {

    /**
     * What a key's rows say, as seen by {@code owner}. Its writer, whether readers hold it, whether
     * another writer waits, and the tokens of {@code owner}'s own holds (0 for none).
     */
    record Holds(String writer, boolean readers, boolean writerWaiting, long ownRead, long ownWrite) {}

    private final Connection connection;
    private final ReadWriteStatements sql;
    private final Dialect dialect;
    private final CallTimeout timeout;

    ReadWriteRows(Connection connection, ReadWriteStatements sql, Dialect dialect, CallTimeout timeout) {
        this.connection = connection;
        this.sql = sql;
        this.dialect = dialect;
        this.timeout = timeout;
    }

    ReadWriteStatements sql() {
        return sql;
    }

    /** Locks the key's anchor row and returns {fence, database now in µs}, or null when the key has none. */
    long[] lockAnchor(String key) throws SQLException {
        try (PreparedStatement select = dialect.prepareWaiting(connection, sql.lockAnchor, timeout)) {
            select.setString(1, key);
            try (ResultSet row = dialect.queryWaiting(select)) {
                return row.next() ? new long[] {row.getLong(1), row.getLong(2)} : null;
            }
        }
    }

    /**
     * Inserts the key's anchor row. One inserted meanwhile by someone else is as good, and so is a
     * MySQL deadlock between two inserts, whose loser looks again.
     */
    void insertAnchor(String key) throws SQLException {
        try {
            insert(new Row(key, "", 'a', 0, 0, ""));
        } catch (SQLException e) {
            if (e.getSQLState() == null || !(e.getSQLState().startsWith("23") || isDeadlock(e))) {
                throw e;
            }
        }
    }

    Holds holds(String key, String owner) throws SQLException {
        String writer = null;
        boolean readers = false;
        boolean writerWaiting = false;
        long ownRead = 0;
        long ownWrite = 0;
        try (PreparedStatement select = dialect.prepare(connection, sql.holds, timeout)) {
            select.setString(1, key);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    boolean own = rows.getString(1).equals(owner);
                    switch (rows.getString(2).charAt(0)) {
                        case 'w' -> {
                            writer = rows.getString(1);
                            ownWrite = own ? rows.getLong(3) : ownWrite;
                        }
                        case 'r' -> {
                            readers = true;
                            ownRead = own ? rows.getLong(3) : ownRead;
                        }
                        case 'q' -> writerWaiting |= !rows.getString(1).equals(owner);
                        default -> {}
                    }
                }
            }
        }
        return new Holds(writer, readers, writerWaiting, ownRead, ownWrite);
    }

    boolean hasLiveRows(String key, long now) throws SQLException {
        return exists(sql.liveRows, key, now);
    }

    private boolean exists(String query, String key, long now) throws SQLException {
        try (PreparedStatement select = dialect.prepare(connection, query, timeout)) {
            select.setString(1, key);
            select.setLong(2, now);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    boolean hasLiveHolds(String key, long now) throws SQLException {
        return exists(sql.liveHolds, key, now);
    }

    /** Signals the waiters of {@code key} in {@code mode}, where the database can ({@link ReadWriteStatements#notify}). */
    void signalReleased(String key, LockMode mode) throws SQLException {
        signal(sql.notify, key, mode);
    }

    /** Signals the waiters of {@code key} on both sides, in one statement. */
    void signalReleasedToBoth(String key) throws SQLException {
        signal(sql.notifyBoth, key, LockMode.READ, LockMode.WRITE);
    }

    private void signal(String statement, String key, LockMode... modes) throws SQLException {
        if (statement == null) {
            return;
        }
        try (PreparedStatement notify = dialect.prepare(connection, statement, timeout)) {
            for (int i = 0; i < modes.length; i++) {
                notify.setString(i + 1, ReadWriteStatements.signalKey(key, modes[i]));
            }
            notify.execute();
        }
    }

    void insert(Row row) throws SQLException {
        try (PreparedStatement insert = dialect.prepare(connection, sql.insert, timeout)) {
            insert.setString(1, row.key());
            insert.setString(2, row.owner());
            insert.setString(3, String.valueOf(row.mode()));
            insert.setLong(4, row.expires());
            insert.setLong(5, row.fence());
            insert.setString(6, row.holder());
            insert.executeUpdate();
        }
    }

    int update(String statement, Object... parameters) throws SQLException {
        try (PreparedStatement update = dialect.prepare(connection, statement, timeout)) {
            for (int i = 0; i < parameters.length; i++) {
                update.setObject(i + 1, parameters[i]);
            }
            return update.executeUpdate();
        }
    }

    static String code(LockMode mode) {
        return mode == LockMode.READ ? "r" : "w";
    }

    static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
    }

    /**
     * One row of the read/write table.
     *
     * @param mode 'a' the key's anchor, 'r' a reader, 'w' the writer, 'q' a waiting writer's intent
     * @param expires when it ends, in µs of the database clock
     */
    record Row(String key, String owner, char mode, long expires, long fence, String holder) {}
}
