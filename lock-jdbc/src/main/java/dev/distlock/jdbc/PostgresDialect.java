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
 * clock_timestamp()} is the time the statement runs, not when its transaction began.
 *
 * <p>How a release wakes waiters depends on the table's columns ({@link Waiters}). On a table
 * with a wait line, a registry whose waiter finds the key held puts its own wake-up channel at the
 * end of the row's {@code wait_line} (in the same round trip as the take), and a release takes the
 * first channel off the line and notifies only that one, keeping the row (free) while others are
 * in line. A registry that is woken but whose waiters no longer wait passes the wake-up on ({@link
 * #passOn}). Waiters that take no place in line (their registry does not listen yet, or an earlier
 * version's) mark the row as waited for instead, and its release notifies the table's channel,
 * which every registry hears (see {@link PostgresNotifications}).
 */
final class PostgresDialect extends Dialect {

    /** What a release can tell waiters, by the columns of the table. */
    enum Waiters {
        /** A table created before the waiting column: every release notifies the table's channel. */
        EVERY_RELEASE,
        /** The waiting column: a release notifies the table's channel when a waiter marked its row. */
        MARKED,
        /** The waiting column and the wait line: a release wakes the first registry in line. */
        LINE
    }

    private static final String NOW_US = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

    /**
     * The row lock wait of the take is bounded in milliseconds by the server, through {@code
     * lock_timeout} set for the implicit transaction the driver runs the statements in (one round
     * trip; the setting ends with it). ${granted} is what a grant also sets.
     */
    private static final String TAKE = """
            SELECT set_config('lock_timeout', ?, true);
            INSERT INTO ${table} AS l (lock_key, owner, holder, expires_at, fence)
            VALUES (?, ?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond', ${now_us})
            ON CONFLICT (lock_key) DO UPDATE
               SET owner = EXCLUDED.owner, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
                   fence = GREATEST(l.fence + 1, ${now_us})${granted}
             WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()
            RETURNING fence""";

    /**
     * With a line, a grant starts the row unmarked and takes the registry's channel off the line
     * (the channel bound is null when the registry stays in line).
     */
    private static final String GRANTED_IN_LINE = """
            ,
                   waiting = FALSE, wait_line = array_remove(l.wait_line, ?::text)""";

    /** When the key is held by another owner, marks its row as waited for (once), so that its release notifies. */
    private static final String MARK_WAITING = """
            ;
            UPDATE ${table} SET waiting = TRUE WHERE lock_key = ? AND owner <> ? AND NOT waiting""";

    /**
     * When the key is held by another owner, puts the registry's channel at the end of the line
     * unless it is in it, and keeps the line for {@code place} µs more; it writes the row only when
     * that changes something or half the place is gone. Without a channel, marks the row.
     */
    private static final String JOIN_LINE = """
            ;
            WITH w AS (SELECT ?::text AS channel, ?::bigint AS place)
            UPDATE ${table} l
               SET waiting = l.waiting OR w.channel IS NULL,
                   wait_line = CASE WHEN w.channel IS NULL OR w.channel = ANY(l.wait_line) THEN l.wait_line
                                    ELSE l.wait_line || w.channel END,
                   line_until = CASE WHEN w.channel IS NULL THEN l.line_until
                                     ELSE clock_timestamp() + w.place * INTERVAL '1 microsecond' END
              FROM w
             WHERE l.lock_key = ? AND l.owner <> ?
               AND CASE WHEN w.channel IS NULL THEN NOT l.waiting
                        ELSE NOT w.channel = ANY(l.wait_line) OR l.line_until IS NULL
                             OR l.line_until < clock_timestamp() + w.place / 2 * INTERVAL '1 microsecond' END""";

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

    /**
     * With a line: a release with nobody in line deletes the row; otherwise it keeps the row free,
     * takes the first channel off the line and notifies it. A marked row notifies the table's channel
     * as well (waiters without a place). Committed as {@link #DELETE_LIVE}.
     */
    private static final String RELEASE_TO_LINE = """
            SELECT set_config('synchronous_commit', 'off', true);
            WITH released AS (
                SELECT lock_key, waiting, wait_line[1] AS next FROM ${table}
                 WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp() AND fence < ${now_us}
                   FOR UPDATE),
            deleted AS (
                DELETE FROM ${table} l USING released r WHERE l.lock_key = r.lock_key AND r.next IS NULL),
            kept AS (
                UPDATE ${table} l
                   SET owner = NULL, holder = NULL, expires_at = NULL, waiting = FALSE, wait_line = l.wait_line[2:]
                  FROM released r WHERE l.lock_key = r.lock_key AND r.next IS NOT NULL)
            SELECT CASE WHEN next IS NOT NULL THEN pg_notify(next, lock_key) END,
                   CASE WHEN waiting THEN pg_notify('${channel}', lock_key) END
              FROM released""";

    /**
     * A registry leaves the key's line (its channel bound, or null when it only passes a wake-up
     * on); then, when the key is free, the first registry in line is taken off and woken; a free
     * row nobody waits for is deleted.
     */
    private static final String PASS_ON = """
            SELECT set_config('synchronous_commit', 'off', true);
            UPDATE ${table} SET wait_line = array_remove(wait_line, ?::text)
             WHERE lock_key = ? AND ?::text = ANY(wait_line);
            WITH free AS (
                SELECT lock_key, wait_line[1] AS next FROM ${table}
                 WHERE lock_key = ? AND (owner IS NULL OR expires_at <= clock_timestamp())
                   AND cardinality(wait_line) > 0
                   FOR UPDATE),
            popped AS (
                UPDATE ${table} l SET wait_line = l.wait_line[2:] FROM free f WHERE l.lock_key = f.lock_key)
            SELECT pg_notify(next, lock_key) FROM free;
            DELETE FROM ${table}
             WHERE lock_key = ? AND owner IS NULL AND cardinality(wait_line) = 0 AND fence < ${now_us}""";

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

    /** ${line}: with a line, rows kept free for the registries in line stay until the line lapses. */
    private static final String SWEEP = """
            DELETE FROM ${table} WHERE lock_key IN (
                SELECT lock_key FROM ${table}
                 WHERE (owner IS NULL OR expires_at <= clock_timestamp()) AND fence < ${now_us}${line}
                 LIMIT ? FOR UPDATE SKIP LOCKED)""";

    private static final String LINE_LAPSED = """

                   AND (cardinality(wait_line) = 0 OR line_until IS NULL OR line_until <= clock_timestamp())""";

    private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);

    private final String take;
    private final String passOn;
    private final String channel;
    private final Waiters waiters;

    PostgresDialect(TableName table) {
        this(table, Waiters.LINE);
    }

    PostgresDialect(TableName table, Waiters waiters) {
        super(
                table,
                "postgresql",
                NOW_US,
                RENEW,
                (waiters == Waiters.LINE ? RELEASE_TO_LINE : DELETE_LIVE)
                        .replace("${channel}", channel(table))
                        .replace("${waiting}", waiters == Waiters.EVERY_RELEASE ? "TRUE" : "waiting"),
                CLEAR_LIVE,
                HOLDER,
                SWEEP.replace("${line}", waiters == Waiters.LINE ? LINE_LAPSED : ""),
                "SELECT clock_timestamp()",
                "clock_timestamp()");
        this.take = sql(
                switch (waiters) {
                    case EVERY_RELEASE -> TAKE.replace("${granted}", "");
                    case MARKED -> TAKE.replace("${granted}", "") + MARK_WAITING;
                    case LINE -> TAKE.replace("${granted}", GRANTED_IN_LINE) + JOIN_LINE;
                },
                table,
                NOW_US);
        this.passOn = sql(PASS_ON, table, NOW_US);
        this.channel = channel(table);
        this.waiters = waiters;
    }

    /** This dialect for a table with the columns of an earlier version. */
    PostgresDialect forColumns(TableName table, Waiters columns) {
        return columns == waiters ? this : new PostgresDialect(table, columns);
    }

    /** What releases on this table tell waiters. */
    Waiters waiters() {
        return waiters;
    }

    /** Selects the column that marks waited-for rows: fails on a table without it. */
    static String waitingProbe(TableName table) {
        return table.into("SELECT waiting FROM ${table} WHERE 1 = 0");
    }

    /** Selects the wait line's columns: fails on a table without them. */
    static String lineProbe(TableName table) {
        return table.into("SELECT wait_line, line_until FROM ${table} WHERE 1 = 0");
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

    /**
     * Past the network timeout: {@code lock_timeout} ends row lock waits and the network timeout a silent server; the
     * driver's cancel of a query timeout goes over a second connection, which a silent server would leave hanging.
     */
    @Override
    int querySeconds(CallTimeout timeout) {
        return timeout.querySecondsPastNetwork();
    }

    @Override
    OptionalLong take(Connection connection, LockRow row, WaitLine line, CallTimeout timeout) throws SQLException {
        // No JDBC query timeout: its cancel, sent over a second connection, would keep this thread
        // waiting on a silent server; lock_timeout ends row lock waits and the network timeout the rest.
        try (PreparedStatement statement = connection.prepareStatement(take)) {
            statement.setString(1, timeout.serverWaitMillis() + "ms");
            bindTake(statement, 2, row);
            int next = 6;
            if (waiters == Waiters.LINE) {
                statement.setString(next++, line.leaving());
                statement.setString(next++, line.channel());
                statement.setLong(next++, line.placeMicros());
            }
            if (waiters != Waiters.EVERY_RELEASE) {
                statement.setString(next++, row.key());
                statement.setString(next, row.owner());
            }
            statement.execute(); // the set_config row
            statement.getMoreResults();
            try (ResultSet rs = statement.getResultSet()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * Takes {@code channel} (null: none) off the key's line and, when the key is free, wakes the
     * first registry left in it. A no-op on a table without a line.
     */
    void passOn(Connection connection, String key, String channel, CallTimeout timeout) throws SQLException {
        if (waiters != Waiters.LINE) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(passOn)) {
            LockDatabase.bind(statement, channel, key, channel, key, key);
            statement.setQueryTimeout(querySeconds(timeout));
            for (boolean rows = statement.execute(); rows || statement.getUpdateCount() >= 0; ) {
                rows = statement.getMoreResults();
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
