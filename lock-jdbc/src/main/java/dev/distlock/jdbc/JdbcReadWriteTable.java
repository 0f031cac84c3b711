package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.rw.LockMode;
import dev.distlock.core.rw.ReadWriteOwners;
import dev.distlock.core.spi.OwnerId;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The read/write lock table ({@code <lock table>_rw}, DDL in {@code schema-rw-*.sql}): each decision
 * on a key runs in one short transaction that first locks the key's anchor row, so it sees every
 * hold and every waiting writer of the key. Times are the database's clock in microseconds. The
 * table is checked (or created) on first use, so registries that never use read/write locks need
 * none.
 */
final class JdbcReadWriteTable {

    /** The statements that differ per database: only the clock expression and the DDL. */
    private enum Database {
        POSTGRESQL("(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT", "schema-rw-postgresql.sql"),
        MYSQL("CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)", "schema-rw-mysql.sql"),
        H2(
                "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)",
                "schema-rw-h2.sql");

        final String nowMicros;
        final String ddl;

        Database(String nowMicros, String ddl) {
            this.nowMicros = nowMicros;
            this.ddl = ddl;
        }

        static Database of(String product) {
            String name = product.toLowerCase(Locale.ROOT);
            if (name.contains("postgres")) {
                return POSTGRESQL;
            }
            if (name.contains("mysql") || name.contains("mariadb")) {
                return MYSQL;
            }
            if (name.contains("h2")) {
                return H2;
            }
            throw new IllegalStateException(
                    "Read/write locks support PostgreSQL, MySQL/MariaDB and H2, not " + product);
        }
    }

    private final DataSource dataSource;
    private final String lockTable;
    private final boolean initializeSchema;
    private volatile Statements sql;
    private volatile String address = "(not yet connected)";

    JdbcReadWriteTable(DataSource dataSource, String lockTable, boolean initializeSchema) {
        this.dataSource = dataSource;
        this.lockTable = lockTable;
        this.initializeSchema = initializeSchema;
    }

    String address() {
        return address;
    }

    /**
     * One decision: takes the key for {@code owner} when the rules allow, else, for a writer that
     * will wait, records (or refreshes) its intent so that new readers queue behind it.
     *
     * @return the token, or 0 when not granted
     */
    long attempt(String key, LockMode mode, OwnerId owner, long leaseMicros, long intentMicros, String holder) {
        while (true) {
            Long token = decide(key, mode, owner, leaseMicros, intentMicros, holder);
            if (token != null) {
                return token;
            }
            // Inserted in a transaction of its own: two transactions that each found no anchor and then
            // inserted one would deadlock on MySQL's gap locks. A release may delete it again; then loop.
            runAutoCommit(key, (connection, s) -> {
                insertAnchor(connection, s, key);
                return null;
            });
        }
    }

    /** The decision under the anchor's lock; null when the key has no anchor row yet. */
    private Long decide(String key, LockMode mode, OwnerId owner, long leaseMicros, long intentMicros, String holder) {
        return run(key, connection -> {
            Statements s = statements(connection);
            long[] anchor = lockAnchor(connection, s, key);
            if (anchor == null) {
                return null;
            }
            long fence = anchor[0];
            long now = anchor[1];
            update(connection, s.deleteExpired, key, now);
            String writer = null;
            boolean readers = false;
            boolean writerWaiting = false;
            try (PreparedStatement select = connection.prepareStatement(s.holds)) {
                select.setString(1, key);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        switch (rows.getString(2).charAt(0)) {
                            case 'w' -> writer = rows.getString(1);
                            case 'r' -> readers = true;
                            case 'q' -> writerWaiting |= !rows.getString(1).equals(owner.value());
                            default -> {}
                        }
                    }
                }
            }
            if (mode == LockMode.READ) {
                if (!ReadWriteOwners.mayRead(writer, writerWaiting, owner)) {
                    return 0L;
                }
                long token = fence > 0 ? fence : now;
                if (fence <= 0) {
                    update(connection, s.setFence, token, key);
                }
                insertRow(connection, s, key, owner.value(), 'r', now + leaseMicros, token, holder);
                return token;
            }
            update(connection, s.deleteIntent, key, owner.value());
            if (writer != null || readers) {
                if (intentMicros > 0) {
                    insertRow(connection, s, key, owner.value(), 'q', now + intentMicros, 0, holder);
                }
                return 0L;
            }
            // As for the plain lock: max(fence + 1, database clock), so tokens keep rising after the rows went.
            long token = Math.max(fence + 1, now);
            update(connection, s.setFence, token, key);
            insertRow(connection, s, key, owner.value(), 'w', now + leaseMicros, token, holder);
            return token;
        });
    }

    boolean renew(String key, LockMode mode, String owner, long leaseMicros) {
        return runAutoCommit(key, (connection, s) -> {
            try (PreparedStatement update = connection.prepareStatement(s.renew)) {
                update.setLong(1, leaseMicros);
                update.setString(2, key);
                update.setString(3, owner);
                update.setString(4, code(mode));
                return update.executeUpdate() == 1;
            }
        });
    }

    /** Ends the hold; when it was the key's last, the key's rows go (the fence keeps rising by the clock). */
    boolean release(String key, LockMode mode, String owner) {
        return run(key, connection -> {
            Statements s = statements(connection);
            long[] anchor = lockAnchor(connection, s, key);
            if (anchor == null) {
                // No anchor, so no live hold: at most a leftover row of an expired one.
                update(connection, s.deleteHold, key, owner, code(mode));
                return false;
            }
            long now = anchor[1];
            boolean live = update(connection, s.deleteLiveHold, key, owner, code(mode), now) == 1;
            if (!live) {
                update(connection, s.deleteHold, key, owner, code(mode));
            }
            if (anchor[0] < now && !hasLiveRows(connection, s, key, now)) {
                update(connection, s.deleteKey, key);
            }
            return live;
        });
    }

    /** A waiting writer gave up: new readers no longer queue behind it. */
    void withdraw(String key, String owner) {
        runAutoCommit(key, (connection, s) -> {
            update(connection, s.deleteIntent, key, owner);
            return null;
        });
    }

    private static String code(LockMode mode) {
        return mode == LockMode.READ ? "r" : "w";
    }

    /** Locks the key's anchor row; {fence, database now in µs}, or null when the key has none. */
    private static long[] lockAnchor(Connection connection, Statements s, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(s.lockAnchor)) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? new long[] {row.getLong(1), row.getLong(2)} : null;
            }
        }
    }

    /**
     * Inserts the key's anchor row; one inserted meanwhile by someone else is as good. Two inserts of
     * an anchor just deleted can deadlock on MySQL; the loser looks again, as after a duplicate.
     */
    private static void insertAnchor(Connection connection, Statements s, String key) throws SQLException {
        try {
            insertRow(connection, s, key, "", 'a', 0, 0, "");
        } catch (SQLException e) {
            if (e.getSQLState() == null || !(e.getSQLState().startsWith("23") || isDeadlock(e))) {
                throw e;
            }
        }
    }

    private static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
    }

    private static boolean hasLiveRows(Connection connection, Statements s, String key, long now) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(s.liveRows)) {
            select.setString(1, key);
            select.setLong(2, now);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    private static void insertRow(
            Connection connection,
            Statements s,
            String key,
            String owner,
            char mode,
            long expires,
            long fence,
            String holder)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(s.insert)) {
            insert.setString(1, key);
            insert.setString(2, owner);
            insert.setString(3, String.valueOf(mode));
            insert.setLong(4, expires);
            insert.setLong(5, fence);
            insert.setString(6, holder);
            insert.executeUpdate();
        }
    }

    private static int update(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                update.setObject(i + 1, parameters[i]);
            }
            return update.executeUpdate();
        }
    }

    private interface InTransaction<T> {
        T run(Connection connection) throws SQLException;
    }

    private interface AutoCommitted<T> {
        T run(Connection connection, Statements s) throws SQLException;
    }

    /** Runs {@code work} in one transaction, again when the database chose it as a deadlock victim. */
    private <T> T run(String key, InTransaction<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return runOnce(work);
            } catch (SQLException e) {
                if (!isDeadlock(e) || attempt == 3) {
                    throw failed(key, e);
                }
            }
        }
    }

    private <T> T runOnce(InTransaction<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    private <T> T runAutoCommit(String key, AutoCommitted<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection, statements(connection));
        } catch (SQLException e) {
            throw failed(key, e);
        }
    }

    private LockBackendException failed(String key, SQLException e) {
        return new LockBackendException(
                "jdbc",
                address,
                key,
                "read/write lock statement on table " + lockTable + "_rw failed (SQLState " + e.getSQLState() + "): "
                        + e.getMessage() + ". Check that the database is reachable and the table exists ("
                        + "DDL in lock-jdbc's dev/distlock/jdbc/schema-rw-*.sql).",
                e);
    }

    /** The statements for this database, after checking (or creating) the table once. */
    private Statements statements(Connection connection) throws SQLException {
        Statements current = sql;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (sql == null) {
                address = JdbcUrls.withoutCredentials(connection.getMetaData().getURL());
                Database database = Database.of(connection.getMetaData().getDatabaseProductName());
                String table = lockTable + "_rw";
                checkTable(connection, database, table);
                sql = new Statements(table, database.nowMicros);
            }
            return sql;
        }
    }

    private void checkTable(Connection connection, Database database, String table) throws SQLException {
        String ddl = ddl(database).replace("${table}", lockTable);
        if (initializeSchema) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try (Statement create = connection.createStatement()) {
                create.execute(ddl);
            } finally {
                connection.setAutoCommit(autoCommit);
            }
            return;
        }
        try (Statement select = connection.createStatement()) {
            select.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "The read/write lock table " + table + " does not exist in " + address + ". Create it with:\n" + ddl
                            + "\nor build the registry with initializeSchema(true).",
                    e);
        }
    }

    private static String ddl(Database database) {
        try (InputStream in = JdbcReadWriteTable.class.getResourceAsStream(database.ddl)) {
            if (in == null) {
                throw new IllegalStateException(database.ddl + " is missing from the lock-jdbc jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            StringBuilder statement = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.startsWith("--")) {
                    statement.append(line).append('\n');
                }
            }
            return statement.toString().trim().replaceAll(";$", "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The statements, with the table name and the clock expression in place. */
    private record Statements(
            String lockAnchor,
            String deleteExpired,
            String holds,
            String setFence,
            String insert,
            String deleteHold,
            String deleteLiveHold,
            String deleteIntent,
            String liveRows,
            String deleteKey,
            String renew) {

        Statements(String t, String now) {
            this(
                    "SELECT fence, " + now + " FROM " + t + " WHERE lock_key = ? AND owner = '' FOR UPDATE",
                    "DELETE FROM " + t + " WHERE lock_key = ? AND owner <> '' AND expires_us <= ?",
                    "SELECT owner, mode FROM " + t + " WHERE lock_key = ? AND owner <> ''",
                    "UPDATE " + t + " SET fence = ? WHERE lock_key = ? AND owner = ''",
                    "INSERT INTO " + t
                            + " (lock_key, owner, mode, expires_us, fence, holder) VALUES (?, ?, ?, ?, ?, ?)",
                    "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = ?",
                    "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = ? AND expires_us > ?",
                    "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = 'q'",
                    "SELECT 1 FROM " + t + " WHERE lock_key = ? AND owner <> '' AND expires_us > ?",
                    "DELETE FROM " + t + " WHERE lock_key = ?",
                    "UPDATE " + t + " SET expires_us = " + now + " + ? WHERE lock_key = ? AND owner = ? AND mode = ?"
                            + " AND expires_us > " + now);
        }
    }
}
