package dev.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: one upsert takes a free, expired or missing row and returns its fence. {@code
 * clock_timestamp()} is the time the statement runs, not when its transaction began. A release
 * that deletes a row notifies the table's channel with the key, which wakes waiters at once (see
 * {@link PostgresNotifications}).
 */
final class PostgresDialect extends Dialect {

    private static final String NOW_US = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

    /**
     * The row lock wait of the take is bounded in milliseconds by the server, through {@code
     * lock_timeout} set for the implicit transaction the driver runs the statements in (one round
     * trip; the setting ends with it). When the key is held by another owner, the last statement
     * marks its row as waited for (once), so that its release notifies.
     */
    private static final String TAKE = """
            SELECT set_config('lock_timeout', ?, true);
            INSERT INTO ${table} AS l (lock_key, owner, holder, expires_at, fence)
            VALUES (?, ?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond', ${now_us})
            ON CONFLICT (lock_key) DO UPDATE
               SET owner = EXCLUDED.owner, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
                   fence = GREATEST(l.fence + 1, ${now_us})
             WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()
            RETURNING fence""";

    private static final String MARK_WAITING = """
            ;
            UPDATE ${table} SET waiting = TRUE WHERE lock_key = ? AND owner <> ? AND NOT waiting""";

    /**
     * Notifies only when a waiter marked the row (or always, on a table without the waiting column).
     * The release commits without waiting for its WAL flush ({@code synchronous_commit} off for its
     * own implicit transaction): it is visible to every session at once, and the next take's commit
     * flushes it; a database crash before that can only bring the row back, which holds the key until
     * its lease ends, as a holder that crashed would. Acquisitions always wait for the flush.
     */
    private static final String DELETE_LIVE = """
            SELECT set_config('synchronous_commit', 'off', true);
            WITH released AS (
                DELETE FROM ${table}
                 WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp() AND fence < ${now_us}
                RETURNING lock_key, ${waiting} AS waiting)
            SELECT CASE WHEN waiting THEN pg_notify('${channel}', lock_key) END FROM released""";

    private static final String RENEW = """
            UPDATE ${table} SET expires_at = clock_timestamp() + ? * INTERVAL '1 microsecond'
             WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""";

    private static final String CLEAR_LIVE = """
            UPDATE ${table} SET owner = NULL, holder = NULL, expires_at = NULL
             WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp()""";

    private static final String HOLDER = """
            SELECT holder, fence, (EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000000)::BIGINT
              FROM ${table}
             WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > clock_timestamp()""";

    private static final String SWEEP = """
            DELETE FROM ${table} WHERE lock_key IN (
                SELECT lock_key FROM ${table}
                 WHERE (owner IS NULL OR expires_at <= clock_timestamp()) AND fence < ${now_us}
                 LIMIT ? FOR UPDATE SKIP LOCKED)""";

    private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);

    private final String take;
    private final String channel;
    private final boolean waiterMarks;

    PostgresDialect(TableName table) {
        this(table, true);
    }

    /** @param waiterMarks whether the table has the waiting column, so that releases notify only waited-for keys */
    PostgresDialect(TableName table, boolean waiterMarks) {
        super(
                table,
                "postgresql",
                NOW_US,
                RENEW,
                DELETE_LIVE
                        .replace("${channel}", channel(table))
                        .replace("${waiting}", waiterMarks ? "waiting" : "TRUE"),
                CLEAR_LIVE,
                HOLDER,
                SWEEP,
                "SELECT clock_timestamp()",
                "clock_timestamp()");
        this.take = sql(waiterMarks ? TAKE + MARK_WAITING : TAKE, table, NOW_US);
        this.channel = channel(table);
        this.waiterMarks = waiterMarks;
    }

    /** This dialect for a table created before the waiting column: every release notifies. */
    PostgresDialect withoutWaiterMarks(TableName table) {
        return waiterMarks ? new PostgresDialect(table, false) : this;
    }

    /** Selects the column that marks waited-for rows: fails on a table without it. */
    static String waitingProbe(TableName table) {
        return table.into("SELECT waiting FROM ${table} WHERE 1 = 0");
    }

    /** The channel this table's releases are notified on. */
    String channel() {
        return channel;
    }

    /** The notification channel of a table: at most 63 bytes, PostgreSQL's identifier length. */
    static String channel(TableName table) {
        String channel = "distlock." + table.value().toLowerCase(Locale.ROOT);
        return channel.length() <= 63 ? channel : channel.substring(0, 63);
    }

    @Override
    OptionalLong take(Connection connection, LockRow row, CallTimeout timeout) throws SQLException {
        // No JDBC query timeout: its cancel, sent over a second connection, would keep this thread
        // waiting on a silent server; lock_timeout ends row lock waits and the network timeout the rest.
        try (PreparedStatement statement = connection.prepareStatement(take)) {
            statement.setString(1, timeout.serverWaitMillis() + "ms");
            bindTake(statement, 2, row);
            if (waiterMarks) {
                statement.setString(6, row.key());
                statement.setString(7, row.owner());
            }
            statement.execute(); // the set_config row
            statement.getMoreResults();
            try (ResultSet rs = statement.getResultSet()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * {@code CREATE TABLE IF NOT EXISTS} is not safe against a concurrent creator on PostgreSQL (the
     * loser fails on the catalog's unique index), so creators of one table take turns: a
     * transaction-level advisory lock on the table's name, held until the DDL commits, the wait for
     * it bounded by {@code lock_timeout}.
     */
    @Override
    void createTable(Connection connection, String table, String ddl, CallTimeout timeout) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?)")) {
            statement.setString(1, timeout.serverWaitMillis() + "ms");
            statement.setLong(2, creationLock(table));
            statement.execute();
        }
        super.createTable(connection, table, ddl, timeout);
    }

    /** The advisory lock id of creating {@code table}: the same in every JVM, apart from other tables'. */
    static long creationLock(String table) {
        byte[] name = ("distlock.create." + table.toLowerCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8);
        long hash = 0xcbf29ce484222325L; // FNV-1a, 64 bits
        for (byte b : name) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        return hash;
    }

    /** Bounded by {@code lock_timeout} for the rest of the transaction, set in the same round trip. */
    @Override
    PreparedStatement prepareWaiting(Connection connection, String sql, CallTimeout timeout) throws SQLException {
        return connection.prepareStatement(
                "SELECT set_config('lock_timeout', '" + timeout.serverWaitMillis() + "ms', true);\n" + sql);
    }

    @Override
    ResultSet queryWaiting(PreparedStatement statement) throws SQLException {
        statement.execute(); // the set_config row
        statement.getMoreResults();
        return statement.getResultSet();
    }

    @Override
    ReleaseSignals releaseSignals(DataSource listenerConnections, String address) {
        if (listenerConnections == null) {
            log.info(
                    "Waiters for locks in {} poll (a release is seen within about 25 ms): the DataSource does not"
                            + " say its URL, so no connection of its own can listen for releases; give the registry"
                            + " one with JdbcLockRegistry.builder(..).notificationDataSource(..)",
                    address);
            return ReleaseSignals.polling();
        }
        return PostgresNotifications.available()
                ? new PostgresNotifications(listenerConnections, channel, address)
                : ReleaseSignals.polling();
    }

    /** 57014 query_canceled (the query timeout), 55P03 lock_not_available (the lock_timeout). */
    @Override
    boolean gaveUpWaiting(String sqlState, int errorCode) {
        return sqlState.equals("57014") || sqlState.equals("55P03");
    }

    @Override
    Instant readNow(ResultSet rs) throws SQLException {
        return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
}
