package dev.distlock.fencing.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;

/**
 * One database's statements on the fence table, with the table name in place. The store's logic
 * runs the same steps everywhere (lock the row, apply the rule, raise it). How a row is locked and
 * created without a race is what differs, and is decided here.
 */
abstract sealed class FenceStatements permits PostgresFenceStatements, MySqlFenceStatements, H2FenceStatements {

    private static final String SELECT = "SELECT backend, lock_key, highest FROM ${table} WHERE resource = ?";
    private static final String RAISE = "UPDATE ${table} SET highest = ?, updated_at = ${now} WHERE resource = ?";
    private static final String REBIND =
            "UPDATE ${table} SET backend = ?, lock_key = ?, highest = ?, updated_at = ${now} WHERE resource = ?";
    private static final String PROBE =
            "SELECT resource, backend, lock_key, highest, updated_at FROM ${table} WHERE 1 = 0";

    final FenceTableName table;
    final String select;
    final String selectForUpdate;
    final String selectShared;
    final String raise;
    final String rebind;
    final String probe;
    private final String schemaResource;

    /**
     * @param id the suffix of the DDL resource
     * @param now the database's current time, as an SQL expression
     * @param sharedLock what follows a query to lock its rows against writers but not readers
     */
    FenceStatements(FenceTableName table, String id, String now, String sharedLock) {
        this.table = table;
        this.schemaResource = "dev/distlock/fencing/jdbc/schema-fence-" + id + ".sql";
        this.select = table.into(SELECT);
        this.selectForUpdate = select + " FOR UPDATE";
        this.selectShared = select + " " + sharedLock;
        this.raise = table.into(RAISE).replace("${now}", now);
        this.rebind = table.into(REBIND).replace("${now}", now);
        this.probe = table.into(PROBE);
    }

    /** The statements of the database a connection's metadata names. */
    static FenceStatements of(String productName, FenceTableName table) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return new PostgresFenceStatements(table);
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return new MySqlFenceStatements(table);
        }
        if (name.equals("h2")) {
            return new H2FenceStatements(table);
        }
        throw new IllegalStateException("The JDBC fence store does not support the database '" + productName
                + "'. Supported: PostgreSQL, MySQL, MariaDB and H2; keep the token in a column of your own table"
                + " (FencedUpdate) or use another fence store.");
    }

    /** The DDL resource on the classpath, with {@code ${table}} standing for the table name. */
    String schemaResource() {
        return schemaResource;
    }

    /**
     * Locks the row of {@code resource} until the transaction ends, first inserting it with {@code
     * claim}'s fence when there is none, and returns the fence it holds (empty only when a racing
     * insert was rolled back, and the caller should try again).
     */
    abstract Optional<Fence> lockRow(Connection connection, String resource, FencingClaim claim, int querySeconds)
            throws SQLException;

    /**
     * Runs {@code work}, whose row lock waits end after {@code querySeconds} (by the query
     * timeout, unless the database bounds them otherwise).
     */
    <T> T boundingWaits(Connection connection, int querySeconds, Work<T> work) throws SQLException {
        return work.run(connection);
    }

    /** Statements run on one connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** The fence of {@code resource} read by {@code sql} (one of this class's selects). */
    Optional<Fence> read(Connection connection, String sql, String resource, int querySeconds) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, querySeconds)) {
            statement.setString(1, resource);
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(
                        new Fence(resource, rs.getString(1), rs.getString(2), FencingToken.of(rs.getLong(3))));
            }
        }
    }

    /** Runs an update bound to {@code parameters} (strings and longs). Returns the rows changed. */
    int update(Connection connection, String sql, int querySeconds, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, querySeconds)) {
            for (int i = 0; i < parameters.length; i++) {
                if (parameters[i] instanceof Long value) {
                    statement.setLong(i + 1, value);
                } else {
                    statement.setString(i + 1, (String) parameters[i]);
                }
            }
            return statement.executeUpdate();
        }
    }

    static PreparedStatement prepare(Connection connection, String sql, int querySeconds) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(querySeconds);
        return statement;
    }
}
