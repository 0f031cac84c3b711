package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * One database's statements on the lock table and what differs in running them. Times in the
 * statements are the database's own clock, and the client binds only a lease length. The
 * parameters are the same in every dialect (see docs/internals/backends.md, "Rows and tokens").
 */
abstract sealed class Dialect permits PostgresDialect, MySqlDialect, H2Dialect {

    /** Frees an expired row still marked with the releasing owner, for the sweep to delete. */
    private static final String CLEAR_OWN =
            "UPDATE ${table} SET owner = NULL, holder = NULL, expires_at = NULL WHERE lock_key = ? AND owner = ?";

    private static final String PROBE = "SELECT lock_key, owner, holder, expires_at, fence FROM ${table} WHERE 1 = 0";

    private static final String MINE = "SELECT fence FROM ${table} WHERE lock_key = ? AND owner = ? AND expires_at > ";

    final String renew;
    final String deleteLive;
    final String clearLive;
    final String clearOwn;
    final String forceDelete;
    final String forceClear;
    final String holder;
    final String sweep;
    final String now;
    final String probe;
    final String mine;
    private final String schemaResource;

    /**
     * The statement templates of one database, with {@code ${table}} and {@code ${now_us}} standing
     * for the table name and {@code nowMicros}.
     *
     * @param id the database's id in the name of its DDL resource
     * @param nowMicros the database clock in microseconds since 1970, as an SQL expression
     * @param deleteLive deletes a live row of ${whose} once the clock has passed its fence
     * @param clearLive frees a live row of ${whose} that the clock has not passed yet
     * @param now selects the database clock
     * @param nowTimestamp the database clock as a timestamp comparable with expires_at
     */
    record Templates(
            String id,
            String nowMicros,
            String renew,
            String deleteLive,
            String clearLive,
            String holder,
            String sweep,
            String now,
            String nowTimestamp) {}

    Dialect(TableName table, Templates sql) {
        String nowMicros = sql.nowMicros();
        this.schemaResource = "dev/distlock/jdbc/schema-" + sql.id() + ".sql";
        this.renew = sql(sql.renew(), table, nowMicros);
        this.deleteLive = sql(sql.deleteLive(), table, nowMicros).replace("${whose}", "owner = ?");
        this.clearLive = sql(sql.clearLive(), table, nowMicros).replace("${whose}", "owner = ?");
        this.forceDelete = sql(sql.deleteLive(), table, nowMicros).replace("${whose}", "owner IS NOT NULL");
        this.forceClear = sql(sql.clearLive(), table, nowMicros).replace("${whose}", "owner IS NOT NULL");
        this.clearOwn = table.into(CLEAR_OWN);
        this.holder = sql(sql.holder(), table, nowMicros);
        this.sweep = sql(sql.sweep(), table, nowMicros);
        this.now = sql.now();
        this.probe = table.into(PROBE);
        this.mine = table.into(MINE) + sql.nowTimestamp();
    }

    /** The dialect of the database a connection's metadata describes. */
    static Dialect of(String productName, String productVersion, TableName table) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        String version = productVersion == null ? "" : productVersion.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return new PostgresDialect(table);
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return new MySqlDialect(table, name.contains("mariadb") || version.contains("mariadb"));
        }
        if (name.equals("h2")) {
            return new H2Dialect(table);
        }
        throw new IllegalStateException("The jdbc lock backend does not support the database '" + productName
                + "'. Supported: PostgreSQL, MySQL, MariaDB and H2; use another lock backend for it.");
    }

    static String sql(String template, TableName table, String nowMicros) {
        return table.into(template).replace("${now_us}", nowMicros);
    }

    /** The DDL resource on the classpath, with {@code ${table}} standing for the table name. */
    String schemaResource() {
        return schemaResource;
    }

    /**
     * Takes the row of {@code row.key()} if it is free, expired or missing, and returns the new
     * fence. The row lock wait is bounded by {@code timeout}. Only PostgreSQL uses {@code queue}.
     */
    abstract OptionalLong take(Connection connection, LockRow row, WaitQueue queue, CallTimeout timeout)
            throws SQLException;

    /** Prepares a statement whose wait is bounded by {@code timeout}'s query timeout. */
    PreparedStatement prepare(Connection connection, String sql, CallTimeout timeout) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(querySeconds(timeout));
        return statement;
    }

    /** The JDBC query timeout of a statement starting now, by default the server wait in whole seconds. */
    int querySeconds(CallTimeout timeout) {
        return timeout.querySeconds();
    }

    /**
     * Prepares a query that may wait for row locks, ended by the database at {@link
     * CallTimeout#serverWaitMillis()} where it can. Run it with {@link #queryWaiting}.
     */
    PreparedStatement prepareWaiting(Connection connection, String sql, CallTimeout timeout) throws SQLException {
        return prepare(connection, sql, timeout);
    }

    /** Runs a statement of {@link #prepareWaiting} and gives its rows. */
    ResultSet queryWaiting(PreparedStatement statement) throws SQLException {
        return statement.executeQuery();
    }

    /** Runs the DDL of {@code table} in the caller's transaction, in turn with other creators where the database can. */
    void createTable(Connection connection, String table, String ddl, CallTimeout timeout) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(querySeconds(timeout));
            statement.execute(ddl);
        }
    }

    /**
     * How waiters learn that a key was released, by polling unless the database can tell them.
     *
     * @param listenerConnections a source of connections that may stay open, or null for none
     */
    ReleaseSignals releaseSignals(DataSource listenerConnections, String address) {
        return ReleaseSignals.polling();
    }

    /**
     * Whether a statement gave up a wait and was rolled back, with the database alive. A lost
     * connection (SQL state class 08) never counts.
     */
    final boolean gaveUpWaiting(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("08")) {
            return false;
        }
        return e instanceof SQLTimeoutException
                || e instanceof SQLTransactionRollbackException
                || state.startsWith("40")
                || gaveUpWaiting(state, e.getErrorCode());
    }

    /** This database's own codes for a statement that gave up waiting. */
    abstract boolean gaveUpWaiting(String sqlState, int errorCode);

    /** Reads the result of {@link #now}. */
    abstract Instant readNow(ResultSet rs) throws SQLException;

    /** Binds key, owner, holder and lease from {@code first} on, in that order. */
    static void bindTake(PreparedStatement statement, int first, LockRow row) throws SQLException {
        statement.setString(first, row.key());
        statement.setString(first + 1, row.owner());
        statement.setString(first + 2, row.holder());
        statement.setLong(first + 3, row.leaseMicros());
    }
}
