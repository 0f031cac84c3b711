package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The lock table: one row per key, taken, renewed and released by single statements.
 *
 * <p>Every call borrows a connection from the pool for its statement(s) and returns it at once,
 * so neither a waiter nor a holder keeps a connection. Connections come straight from the
 * {@link DataSource}, never from a transaction bound to the caller's thread (as {@code
 * JdbcTemplate} would take them): a lock row must be visible to everyone as soon as it is
 * written, whatever transaction the caller is in. When the pool hands out connections with
 * auto-commit off, each call commits its own work.
 */
final class LockTable {

    static final String BACKEND = "jdbc";

    /** How long a start-up statement (probe, DDL) may take. */
    private static final Duration SET_UP_TIME = Duration.ofSeconds(30);

    /** Network timeouts are set through it; the drivers in use apply them to the socket and ignore it. */
    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;
    private final TableName table;
    private final Dialect dialect;
    private final String address;
    private final SQLExceptionTranslator translator;
    private final String take;
    private final String readFence;
    private final String insert;
    private final String renew;
    private final String releaseLive;
    private final String clearOwn;
    private final String now;

    private LockTable(DataSource dataSource, TableName table, Dialect dialect, String address, String productName) {
        this.dataSource = dataSource;
        this.table = table;
        this.dialect = dialect;
        this.address = address;
        this.translator = new SQLErrorCodeSQLExceptionTranslator(productName);
        Statements statements = dialect.statements();
        this.take = table.into(statements.take());
        this.readFence = statements.readFence() == null ? null : table.into(statements.readFence());
        this.insert = statements.insert() == null ? null : table.into(statements.insert());
        this.renew = table.into(statements.renew());
        this.releaseLive = table.into(statements.releaseLive());
        this.clearOwn = table.into(Statements.CLEAR_OWN);
        this.now = statements.now();
    }

    /**
     * Connects once to learn the database and its address, then checks the table; with {@code
     * initializeSchema} a missing table is created, otherwise it fails with the DDL to run.
     */
    static LockTable open(DataSource dataSource, TableName table, boolean initializeSchema) {
        DataSource target =
                dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : dataSource;
        LockTable lockTable;
        try (Connection connection = target.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            String productName = metaData.getDatabaseProductName();
            lockTable = new LockTable(
                    target,
                    table,
                    Dialect.of(productName),
                    JdbcUrls.withoutCredentials(metaData.getURL()),
                    productName);
        } catch (SQLException e) {
            throw new LockBackendException(
                    BACKEND,
                    "the application's DataSource",
                    null,
                    "could not connect to check the lock table '" + table + "' (" + e.getMessage()
                            + "). Check the DataSource settings and that the database is running.",
                    e);
        }
        lockTable.checkTable(initializeSchema);
        return lockTable;
    }

    String address() {
        return address;
    }

    Dialect dialect() {
        return dialect;
    }

    TableName table() {
        return table;
    }

    /** Whether {@link #take} also inserts the row of a key used for the first time. */
    boolean takeInserts() {
        return insert == null;
    }

    /** Takes the row if it is free or expired (and, in PostgreSQL, if it is missing); returns the new fence. */
    OptionalLong take(String key, String owner, Duration lease, CallTimeout timeout) {
        return run(key, timeout, connection -> {
            if (readFence == null) { // an upsert that returns the fence
                try (PreparedStatement statement = connection.prepareStatement(take)) {
                    statement.setQueryTimeout(timeout.querySeconds());
                    bind(statement, key, owner, dialect.leaseAmount(lease));
                    try (ResultSet rs = statement.executeQuery()) {
                        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                    }
                }
            }
            if (update(connection, take, timeout, owner, dialect.leaseAmount(lease), key) == 0) {
                return OptionalLong.empty();
            }
            try (PreparedStatement statement = connection.prepareStatement(readFence)) {
                statement.setQueryTimeout(timeout.querySeconds());
                bind(statement, key, owner);
                try (ResultSet rs = statement.executeQuery()) {
                    // Empty only if the lease ran out between the two statements and another owner took it.
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        });
    }

    /**
     * Inserts the row of a key used for the first time, owned by {@code owner} with fence 1.
     *
     * @return false when the row already exists (another owner inserted it first)
     */
    boolean insert(String key, String owner, Duration lease, CallTimeout timeout) {
        return run(key, timeout, connection -> {
            try {
                // 0 rows: MySQL's INSERT IGNORE met an existing row
                return update(connection, insert, timeout, key, owner, dialect.leaseAmount(lease)) == 1;
            } catch (SQLException e) {
                if (translate("insert", insert, e) instanceof DuplicateKeyException) {
                    return false;
                }
                throw e;
            }
        });
    }

    /** Extends the lease from the database's now, if {@code owner} still holds an unexpired lease. */
    boolean renew(String key, String owner, Duration lease, CallTimeout timeout) {
        return run(
                key,
                timeout,
                connection -> update(connection, renew, timeout, dialect.leaseAmount(lease), key, owner) == 1);
    }

    /**
     * Frees the row if {@code owner} holds it. Returns false when its lease had already run out;
     * a row that expired but was not taken by anyone else is freed as well.
     */
    boolean release(String key, String owner, CallTimeout timeout) {
        return run(key, timeout, connection -> {
            if (update(connection, releaseLive, timeout, key, owner) == 1) {
                return true;
            }
            update(connection, clearOwn, timeout, key, owner);
            return false;
        });
    }

    /** The database's current time, for reports of how far a JVM's clock is off; never used for expiry. */
    Instant databaseNow() {
        return run(null, CallTimeout.of(Duration.ofSeconds(5)), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(now);
                    ResultSet rs = statement.executeQuery()) {
                rs.next();
                return dialect.readNow(rs);
            }
        });
    }

    /** The DDL of this dialect for this table. */
    String schemaScript() {
        String resource = dialect.schemaResource();
        try (InputStream in = LockTable.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource + " in the lock-jdbc jar");
            }
            return table.into(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource, e);
        }
    }

    private void checkTable(boolean initializeSchema) {
        SQLException missing = probe();
        if (missing == null) {
            return;
        }
        if (!initializeSchema) {
            throw new IllegalStateException("The lock table '" + table + "' is missing or lacks the expected columns"
                    + " in " + address + " (" + missing.getMessage().strip() + "). Create it with the DDL in"
                    + " classpath:" + dialect.schemaResource() + " (with ${table} = " + table + "), e.g. from a"
                    + " Flyway or Liquibase migration, or let distlock create it: JdbcLockRegistry.builder(..)"
                    + ".initializeSchema(true), or distributed-lock.jdbc.initialize-schema=always. The DDL:\n"
                    + schemaScript());
        }
        run(null, CallTimeout.of(SET_UP_TIME), connection -> {
            ScriptUtils.executeSqlScript(
                    connection, new ByteArrayResource(schemaScript().getBytes(StandardCharsets.UTF_8)));
            return null;
        });
        SQLException stillMissing = probe();
        if (stillMissing != null) {
            throw new IllegalStateException(
                    "Created the lock table '" + table + "' in " + address + " but it is still not usable: "
                            + stillMissing.getMessage(),
                    stillMissing);
        }
    }

    /** Null when the table can be read, else why not. */
    private SQLException probe() {
        String sql = table.into(Statements.PROBE);
        return run(null, CallTimeout.of(SET_UP_TIME), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql);
                    ResultSet rs = statement.executeQuery()) {
                return null;
            } catch (SQLException e) {
                if (isConnectionFailure(e)) {
                    throw e;
                }
                if (!connection.getAutoCommit()) {
                    connection.rollback(); // PostgreSQL refuses further statements in a failed transaction
                }
                return e;
            }
        });
    }

    private static boolean isConnectionFailure(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("08");
    }

    /**
     * Runs {@code work} on a connection of its own, committing it unless the pool's connections
     * auto-commit. A failed or cancelled statement is rolled back before the connection goes back.
     * Waiting for the connection is bounded by the pool (its connection timeout), not by {@code
     * timeout}; once connected, the connection's network timeout bounds every read from the database.
     */
    private <T> T run(String key, CallTimeout timeout, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            int networkTimeout = limitNetworkWait(connection, timeout);
            try {
                if (connection.getAutoCommit()) {
                    return work.run(connection);
                }
                try {
                    T result = work.run(connection);
                    connection.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(connection, e);
                    throw e;
                }
            } finally {
                restoreNetworkWait(connection, networkTimeout);
            }
        } catch (SQLException e) {
            throw failure(key, e);
        }
    }

    /** Sets the network timeout for this call; returns the one to restore, or -1 when the driver has none. */
    private static int limitNetworkWait(Connection connection, CallTimeout timeout) throws SQLException {
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, timeout.networkMillis());
            return previous;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            return -1;
        }
    }

    /** Gives the connection back with the pool's own network timeout (a broken one is discarded by the pool anyway). */
    private static void restoreNetworkWait(Connection connection, int networkTimeout) {
        if (networkTimeout < 0) {
            return;
        }
        try {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(DIRECT, networkTimeout);
            }
        } catch (SQLException e) {
            // The connection broke during the call; the pool checks it before lending it again.
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private LockBackendException failure(String key, SQLException e) {
        if (dialect.gaveUpWaiting(e)) {
            return new LockStatementTimeoutException(
                    address,
                    key,
                    "the lock statement on table '" + table + "' gave up waiting and was rolled back (SQL state "
                            + e.getSQLState() + ": " + e.getMessage().strip() + "). Another transaction held the"
                            + " key's row, or the database was too slow; check for long transactions touching"
                            + " the lock table.",
                    e);
        }
        DataAccessException translated = translate("lock statement", null, e);
        return new LockBackendException(
                BACKEND,
                address,
                key,
                "the lock statement on table '" + table + "' failed (SQL state " + e.getSQLState() + ": "
                        + e.getMessage() + "). Check that the database is reachable and the table matches "
                        + dialect.schemaResource(),
                translated != null ? translated : e);
    }

    private DataAccessException translate(String task, String sql, SQLException e) {
        return translator.translate(task, sql, e);
    }

    private static int update(Connection connection, String sql, CallTimeout timeout, Object... parameters)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setQueryTimeout(timeout.querySeconds());
            bind(statement, parameters);
            return statement.executeUpdate();
        }
    }

    private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] instanceof Long value) {
                statement.setLong(i + 1, value);
            } else {
                statement.setString(i + 1, (String) parameters[i]);
            }
        }
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }
}
