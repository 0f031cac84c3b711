package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * MySQL and MariaDB. The row is locked by an upsert that changes nothing when it exists (InnoDB
 * takes an exclusive lock on the duplicate row), then read. A {@code SELECT ... FOR UPDATE} of a
 * missing row would take a gap lock, and two transactions inserting the same resource behind gap
 * locks deadlock. UTC_TIMESTAMP does not depend on the session's time zone.
 */
final class MySqlFenceStatements extends FenceStatements {

    private static final String INSERT_OR_LOCK = """
            INSERT INTO ${table} (resource, backend, lock_key, highest, updated_at)
            VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE resource = resource""";

    private final String insertOrLock;

    MySqlFenceStatements(FenceTableName table) {
        super(table, "mysql", "UTC_TIMESTAMP(6)", "LOCK IN SHARE MODE");
        this.insertOrLock = table.into(INSERT_OR_LOCK);
    }

    @Override
    Optional<Fence> lockRow(Connection connection, String resource, FencingClaim claim, int querySeconds)
            throws SQLException {
        update(
                connection,
                insertOrLock,
                querySeconds,
                resource,
                claim.backend(),
                claim.lockKey(),
                claim.token().value());
        return read(connection, selectForUpdate, resource, querySeconds);
    }
}
