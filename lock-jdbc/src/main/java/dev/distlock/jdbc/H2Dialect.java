package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.OptionalLong;

/**
 * H2, in-process. A MERGE takes the row, and the fence is read back by owner (measured faster
 * in-process than {@code SELECT ... FROM FINAL TABLE (MERGE ...)}). H2 ends row lock waits at
 * its own LOCK_TIMEOUT, whatever the query timeout.
 */
final class H2Dialect extends Dialect {

    private static final String NOW_US =
            "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";

    private static final String TAKE = """
            MERGE INTO ${table} AS l
            USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), CAST(? AS VARCHAR(200)),
                           DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), ${now_us}))
                  AS r (lock_key, owner, holder, expires_at, fence)
               ON l.lock_key = r.lock_key
            WHEN MATCHED AND (l.owner IS NULL OR l.expires_at <= CURRENT_TIMESTAMP) THEN
                UPDATE SET owner = r.owner, holder = r.holder, expires_at = r.expires_at,
                           fence = GREATEST(l.fence + 1, r.fence)
            WHEN NOT MATCHED THEN
                INSERT (lock_key, owner, holder, expires_at, fence)
                VALUES (r.lock_key, r.owner, r.holder, r.expires_at, r.fence)""";

    private static final String READ_FENCE = "SELECT fence FROM ${table} WHERE lock_key = ? AND owner = ?";

    private static final String RENEW = """
            UPDATE ${table} SET expires_at = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)
             WHERE lock_key = ? AND owner = ? AND expires_at > CURRENT_TIMESTAMP""";

    private static final String DELETE_LIVE = """
            DELETE FROM ${table}
             WHERE lock_key = ? AND ${whose} AND expires_at > CURRENT_TIMESTAMP AND fence < ${now_us}""";

    private static final String CLEAR_LIVE = """
            UPDATE ${table} SET owner = NULL, holder = NULL, expires_at = NULL
             WHERE lock_key = ? AND ${whose} AND expires_at > CURRENT_TIMESTAMP""";

    private static final String HOLDER = """
            SELECT holder, fence, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)
              FROM ${table}
             WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > CURRENT_TIMESTAMP""";

    private static final String SWEEP = """
            DELETE FROM ${table}
             WHERE (owner IS NULL OR expires_at <= CURRENT_TIMESTAMP) AND fence < ${now_us}
             FETCH FIRST ? ROWS ONLY""";

    private final String take;
    private final String readFence;

    H2Dialect(TableName table) {
        super(
                table,
                new Templates(
                        "h2",
                        NOW_US,
                        RENEW,
                        DELETE_LIVE,
                        CLEAR_LIVE,
                        HOLDER,
                        SWEEP,
                        "SELECT CURRENT_TIMESTAMP",
                        "CURRENT_TIMESTAMP"));
        this.take = sql(TAKE, table, NOW_US);
        this.readFence = table.into(READ_FENCE);
    }

    /**
     * No query timeout. In-process, a statement waits only for row locks, which LOCK_TIMEOUT ends,
     * and setting H2's query timeout runs a command of its own.
     */
    @Override
    PreparedStatement prepare(Connection connection, String sql, CallTimeout timeout) throws SQLException {
        return connection.prepareStatement(sql);
    }

    @Override
    OptionalLong take(Connection connection, LockRow row, WaitQueue queue, CallTimeout timeout) throws SQLException {
        try (PreparedStatement statement = prepare(connection, take, timeout)) {
            bindTake(statement, 1, row);
            statement.executeUpdate();
        }
        // The row read is the one just taken, as owners are unique per hold.
        try (PreparedStatement statement = prepare(connection, readFence, timeout)) {
            statement.setString(1, row.key());
            statement.setString(2, row.owner());
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * 57014 statement cancelled, HYT00 lock timeout, 23505 a racing MERGE inserted the key's row
     * first (the row is taken).
     */
    @Override
    boolean gaveUpWaiting(String sqlState, int errorCode) {
        return sqlState.equals("57014") || sqlState.startsWith("HYT") || sqlState.equals("23505");
    }

    @Override
    Instant readNow(ResultSet rs) throws SQLException {
        return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
}
