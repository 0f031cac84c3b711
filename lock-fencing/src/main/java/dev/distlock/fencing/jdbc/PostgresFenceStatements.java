package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * PostgreSQL. An existing row is locked by {@code SELECT ... FOR UPDATE}. A missing one is inserted
 * with {@code ON CONFLICT DO NOTHING}, which waits for a racing insert of the same resource to end
 * instead of failing (a failed statement would abort the caller's whole transaction).
 */
final class PostgresFenceStatements extends FenceStatements {

    private static final String INSERT = """
            INSERT INTO ${table} (resource, backend, lock_key, highest, updated_at)
            VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
            ON CONFLICT (resource) DO NOTHING""";

    private final String insert;

    PostgresFenceStatements(FenceTableName table) {
        super(table, "postgresql", "CURRENT_TIMESTAMP", "FOR SHARE");
        this.insert = table.into(INSERT);
    }

    @Override
    Optional<Fence> lockRow(Connection connection, String resource, FencingClaim claim, int querySeconds)
            throws SQLException {
        Optional<Fence> existing = read(connection, selectForUpdate, resource, querySeconds);
        if (existing.isPresent()) {
            return existing;
        }
        update(
                connection,
                insert,
                querySeconds,
                resource,
                claim.backend(),
                claim.lockKey(),
                claim.token().value());
        return read(connection, selectForUpdate, resource, querySeconds);
    }
}
