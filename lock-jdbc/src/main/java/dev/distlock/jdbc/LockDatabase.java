package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Where the lock table lives, and how one call on it runs. Each call borrows a connection of its
 * own, commits on its own and is bounded in time. Failures become {@link LockBackendException}s
 * that name the key, the database and what to do.
 *
 * <p>Connections come straight from the {@link DataSource}, never from the caller's transaction,
 * so that a lock row is visible to everyone as soon as it is written.
 */
final class LockDatabase {

    /** The key of a call that concerns no one lock (a check, the sweep). */
    static final String NO_KEY = null;

    /** The translator is not given the statement's text. */
    private static final String SQL_NOT_KEPT = null;

    final ConnectionSource connections;
    final TableName table;
    final Dialect dialect;
    final String address;
    private final SQLExceptionTranslator translator;

    private LockDatabase(
            ConnectionSource connections, TableName table, Dialect dialect, String address, String product) {
        this(connections, table, dialect, address, new SQLErrorCodeSQLExceptionTranslator(product));
    }

    private LockDatabase(
            ConnectionSource connections,
            TableName table,
            Dialect dialect,
            String address,
            SQLExceptionTranslator translator) {
        this.connections = connections;
        this.table = table;
        this.dialect = dialect;
        this.address = address;
        this.translator = translator;
    }

    /** The same database, its table run in another dialect (one the table's columns call for). */
    LockDatabase withDialect(Dialect other) {
        return other == dialect ? this : new LockDatabase(connections, table, other, address, translator);
    }

    /**
     * Connects once to learn the database, its dialect and its address, within {@code timeout}.
     *
     * @param key the key of the call that needs the database, null for none
     * @param configuredAddress where the DataSource is configured to connect, for the message when it cannot
     */
    static LockDatabase connect(
            ConnectionSource connections, TableName table, String key, String configuredAddress, CallTimeout timeout) {
        Connection connection;
        try {
            connection = connections.get(timeout);
        } catch (SQLException | RuntimeException e) {
            // A pool that starts on its first call may fail with a RuntimeException (HikariCP does).
            throw cannotConnect(table, key, configuredAddress, e);
        }
        try (connection) {
            DatabaseMetaData metaData = connection.getMetaData();
            String product = metaData.getDatabaseProductName();
            Dialect dialect = Dialect.of(product, metaData.getDatabaseProductVersion(), table);
            return new LockDatabase(
                    connections, table, dialect, JdbcUrls.withoutCredentials(metaData.getURL()), product);
        } catch (SQLException e) {
            throw cannotConnect(table, key, configuredAddress, e);
        }
    }

    /** The application's DataSource, unwrapped from Spring's transaction-aware proxy. */
    static DataSource target(DataSource dataSource) {
        return dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : dataSource;
    }

    private static LockBackendException cannotConnect(
            TableName table, String key, String configuredAddress, Exception e) {
        return new DatabaseUnavailableException(
                configuredAddress,
                key,
                "could not connect to the database of the lock table '" + table + "' (" + causes(e)
                        + "). Check that the database is running and reachable and that the DataSource"
                        + " settings (URL, user and credentials) are right; lock calls fail until it is, and the"
                        + " first call after it is back sets the lock table up.",
                e);
    }

    /** The messages of a failure and its causes, as far as they add anything. */
    static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String message = t.getMessage() == null
                    ? t.getClass().getName()
                    : t.getMessage().strip();
            if (text.indexOf(message) < 0) {
                text.append(text.length() == 0 ? "" : ": ").append(message);
            }
        }
        return text.toString();
    }

    /**
     * Runs {@code work} on a connection of its own, committing it unless the pool's connections
     * auto-commit. A failed or cancelled statement is rolled back before the connection goes back.
     */
    <T> T run(String key, CallTimeout timeout, Work<T> work) {
        try {
            return call(timeout, false, work);
        } catch (SQLException e) {
            throw failure(key, e);
        }
    }

    /** As {@link #run}, but always in one transaction, and failures reach the caller as they are. */
    <T> T transaction(CallTimeout timeout, Work<T> work) throws SQLException {
        return call(timeout, true, work);
    }

    /** As {@link #run}, with failures as they are. */
    <T> T call(CallTimeout timeout, Work<T> work) throws SQLException {
        return call(timeout, false, work);
    }

    private <T> T call(CallTimeout timeout, boolean transaction, Work<T> work) throws SQLException {
        try (Connection connection = connections.get(timeout)) {
            return ConnectionCall.run(connection, timeout, transaction, work);
        }
    }

    /** Rows changed or returned by a statement, or by the last of several sent together. */
    int affected(Connection connection, String sql, CallTimeout timeout, Object... parameters) throws SQLException {
        try (PreparedStatement statement = dialect.prepare(connection, sql, timeout)) {
            bind(statement, parameters);
            int affected = 0;
            for (boolean rows = statement.execute(); ; rows = statement.getMoreResults()) {
                if (rows) {
                    affected = 0;
                    try (ResultSet rs = statement.getResultSet()) {
                        while (rs.next()) {
                            affected++;
                        }
                    }
                } else if (statement.getUpdateCount() >= 0) {
                    affected = statement.getUpdateCount();
                } else {
                    return affected;
                }
            }
        }
    }

    static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] instanceof Long value) {
                statement.setLong(i + 1, value);
            } else if (parameters[i] instanceof Integer value) {
                statement.setInt(i + 1, value);
            } else {
                statement.setString(i + 1, (String) parameters[i]);
            }
        }
    }

    /** The failure of a call as the caller sees it, naming the key, the table and the database. */
    LockBackendException failure(String key, SQLException e) {
        if (e instanceof ConnectionSource.NoConnection) {
            return new DatabaseUnavailableException(address, key, e.getMessage(), e);
        }
        String message =
                e.getMessage() == null ? e.getClass().getName() : e.getMessage().strip();
        if (dialect.gaveUpWaiting(e)) {
            return new LockStatementTimeoutException(
                    address,
                    key,
                    "the lock statement on table '" + table + "' gave up waiting and was rolled back (SQL state "
                            + e.getSQLState() + ": " + message + "). Another transaction held the key's row,"
                            + " or the database was too slow; check for long transactions touching the lock table.",
                    e);
        }
        DataAccessException translated = translator.translate("lock statement", SQL_NOT_KEPT, e);
        String problem = "the lock statement on table '" + table + "' failed (SQL state " + e.getSQLState() + ": "
                + message + "). Check that the database is reachable and the table matches "
                + dialect.schemaResource();
        return unavailable(e)
                ? new DatabaseUnavailableException(address, key, problem, translated != null ? translated : e)
                : new LockBackendException(
                        JdbcLockBackend.NAME, address, key, problem, translated != null ? translated : e);
    }

    /**
     * Whether a failure says the database is unavailable for now, rather than that the statement or
     * table is wrong. A lost connection, a server shutting down or starting up, or no free connections.
     */
    static boolean unavailable(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return e instanceof SQLTransientConnectionException
                || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException
                || state.startsWith("08")
                || state.equals("57P01") // admin_shutdown
                || state.equals("57P02") // crash_shutdown
                || state.equals("57P03") // cannot_connect_now, starting up
                || state.equals("53300"); // too_many_connections
    }

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }
}
