package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * H2. An existing row is locked by {@code SELECT ... FOR UPDATE}. A missing one is inserted by a
 * plain INSERT, which waits for another transaction's insert of the same resource and then fails
 * with a duplicate key (23505): H2 rolls back only that statement, and the next read waits for the
 * other transaction's row. H2 has no shared row locks, so a fenced read locks the row as a write does.
 */
final class H2FenceStatements extends FenceStatements {

    private static final String INSERT = """
            INSERT INTO ${table} (resource, backend, lock_key, highest, updated_at)
            VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)""";

    private final String insert;

    H2FenceStatements(FenceTableName table) {
        super(table, "h2", "CURRENT_TIMESTAMP", "FOR UPDATE");
        this.insert = table.into(INSERT);
    }

    /**
     * H2 ends row lock waits at the session's LOCK_TIMEOUT, whatever the query timeout. Set it to the
     * store's timeout for the check, and back after.
     */
    @Override
    <T> T boundingWaits(Connection connection, int querySeconds, Work<T> work) throws SQLException {
        long previous;
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
            rs.next();
            previous = rs.getLong(1);
        }
        setLockTimeout(connection, querySeconds * 1000L);
        try {
            return work.run(connection);
        } finally {
            setLockTimeout(connection, previous);
        }
    }

    private static void setLockTimeout(Connection connection, long millis) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCK_TIMEOUT " + millis);
        }
    }

    @Override
    Optional<Fence> lockRow(Connection connection, String resource, FencingClaim claim, int querySeconds)
            throws SQLException {
        Optional<Fence> existing = read(connection, selectForUpdate, resource, querySeconds);
        if (existing.isPresent()) {
            return existing;
        }
        try {
            update(
                    connection,
                    insert,
                    querySeconds,
                    resource,
                    claim.backend(),
                    claim.lockKey(),
                    claim.token().value());
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
        }
        return read(connection, selectForUpdate, resource, querySeconds);
    }
}
