package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * MySQL and MariaDB. The take hands the fence back as the statement's last insert id ({@code
 * LAST_INSERT_ID(expr)}), so it is one round trip without RETURNING. UTC_TIMESTAMP does not
 * depend on the session's time zone and is fixed for the whole statement.
 */
final class MySqlDialect extends Dialect {

    private static final String NOW_US = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

    /**
     * The assignments run in order, each seeing the ones before. Fence, holder and owner test the row
     * as it was, and after owner is set, "owner is ours" says whether the row was taken. The last
     * insert id is the new fence when the row was inserted or taken, and 0 when it is held.
     */
    private static final String TAKE = """
            INSERT INTO ${table} (lock_key, owner, holder, expires_at, fence)
            VALUES (?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, LAST_INSERT_ID(${now_us}))
            ON DUPLICATE KEY UPDATE
                fence = IF(owner IS NULL OR expires_at <= UTC_TIMESTAMP(6),
                           LAST_INSERT_ID(GREATEST(fence + 1, VALUES(fence))), fence + LAST_INSERT_ID(0)),
                holder = IF(owner IS NULL OR expires_at <= UTC_TIMESTAMP(6), VALUES(holder), holder),
                owner = IF(owner IS NULL OR expires_at <= UTC_TIMESTAMP(6), VALUES(owner), owner),
                expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)""";

    private static final String RENEW = """
            UPDATE ${table} SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE lock_key = ? AND owner = ? AND expires_at > UTC_TIMESTAMP(6)""";

    private static final String DELETE_LIVE = """
            DELETE FROM ${table}
             WHERE lock_key = ? AND ${whose} AND expires_at > UTC_TIMESTAMP(6) AND fence < ${now_us}""";

    private static final String CLEAR_LIVE = """
            UPDATE ${table} SET owner = NULL, holder = NULL, expires_at = NULL
             WHERE lock_key = ? AND ${whose} AND expires_at > UTC_TIMESTAMP(6)""";

    private static final String HOLDER = """
            SELECT holder, fence, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)
              FROM ${table}
             WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > UTC_TIMESTAMP(6)""";

    private static final String SWEEP = """
            DELETE FROM ${table}
             WHERE (owner IS NULL OR expires_at <= UTC_TIMESTAMP(6)) AND fence < ${now_us}
             LIMIT ?""";

    private final String take;
    private final boolean mariaDb;

    MySqlDialect(TableName table, boolean mariaDb) {
        super(
                table,
                new Templates(
                        "mysql",
                        NOW_US,
                        RENEW,
                        DELETE_LIVE,
                        CLEAR_LIVE,
                        HOLDER,
                        SWEEP,
                        "SELECT UTC_TIMESTAMP(6)",
                        "UTC_TIMESTAMP(6)"));
        this.take = sql(TAKE, table, NOW_US);
        this.mariaDb = mariaDb;
    }

    /**
     * MariaDB bounds the take's row lock wait by {@code max_statement_time}. MySQL has no such bound
     * for writes, so the query timeout in whole seconds ends it.
     */
    @Override
    OptionalLong take(Connection connection, LockRow row, WaitQueue queue, CallTimeout timeout) throws SQLException {
        String sql = mariaDb ? maxStatementTime(timeout) + take : take;
        try (PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            if (!mariaDb) {
                statement.setQueryTimeout(timeout.querySeconds());
            }
            bindTake(statement, 1, row);
            statement.executeUpdate();
            try (ResultSet fence = statement.getGeneratedKeys()) {
                long value = fence.next() ? fence.getLong(1) : 0;
                return value > 0 ? OptionalLong.of(value) : OptionalLong.empty();
            }
        }
    }

    /** Bounded by max_statement_time on MariaDB, and by the query timeout on MySQL. */
    @Override
    PreparedStatement prepareWaiting(Connection connection, String sql, CallTimeout timeout) throws SQLException {
        return mariaDb
                ? connection.prepareStatement(maxStatementTime(timeout) + sql)
                : prepare(connection, sql, timeout);
    }

    private static String maxStatementTime(CallTimeout timeout) {
        return String.format(
                Locale.ROOT, "SET STATEMENT max_statement_time=%.3f FOR ", timeout.serverWaitMillis() / 1000.0);
    }

    /** 1205 lock wait timeout, 1317 query interrupted, 1969 MariaDB's max_statement_time, 3024 MySQL's max_execution_time. */
    @Override
    boolean gaveUpWaiting(String sqlState, int errorCode) {
        return sqlState.equals("70100")
                || errorCode == 1205
                || errorCode == 1317
                || errorCode == 1969
                || errorCode == 3024;
    }

    @Override
    Instant readNow(ResultSet rs) throws SQLException {
        return rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
    }
}
