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
 * PostgreSQL. One upsert takes a free, expired or missing row and returns its fence. A release
 * wakes the next registry in the key's queue, or every waiting registry on older tables ({@link
 * Waiters}).
 */
final class PostgresDialect extends Dialect {

    /** What a release can tell waiters, by the columns of the table. */
    enum Waiters {
        /** A table created before the waiting column. Every release notifies the table's channel. */
        EVERY_RELEASE,
        /** The waiting column. A release notifies the table's channel when a waiter marked its row. */
        MARKED,
        /** The waiting column and the wait queue. A release wakes the first registry in the queue. */
        QUEUE
    }

    private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);

    private final String take;
    private final String passOn;
    private final String channel;
    private final Waiters waiters;

    PostgresDialect(TableName table) {
        this(table, Waiters.QUEUE);
    }

    PostgresDialect(TableName table, Waiters waiters) {
        super(
                table,
                new Templates(
                        "postgresql",
                        PostgresStatements.NOW_US,
                        PostgresStatements.RENEW,
                        PostgresStatements.release(waiters, channel(table)),
                        PostgresStatements.CLEAR_LIVE,
                        PostgresStatements.HOLDER,
                        PostgresStatements.sweep(waiters),
                        "SELECT clock_timestamp()",
                        "clock_timestamp()"));
        this.take = sql(PostgresStatements.take(waiters), table, PostgresStatements.NOW_US);
        this.passOn = sql(PostgresStatements.PASS_ON, table, PostgresStatements.NOW_US);
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

    /** Selects the column that marks waited-for rows, and fails on a table without it. */
    static String waitingProbe(TableName table) {
        return table.into("SELECT waiting FROM ${table} WHERE 1 = 0");
    }

    /** Selects the wait queue's columns, and fails on a table without them. */
    static String queueProbe(TableName table) {
        return table.into("SELECT wait_line, line_until FROM ${table} WHERE 1 = 0");
    }

    /** The channel this table's releases are notified on. */
    String channel() {
        return channel;
    }

    /** The notification channel of a table, at most PostgreSQL's identifier length of 63 bytes. */
    static String channel(TableName table) {
        String channel = "distlock." + table.value().toLowerCase(Locale.ROOT);
        return channel.length() <= 63 ? channel : channel.substring(0, 63);
    }

    /** Past the network timeout, as {@code lock_timeout} ends row lock waits. */
    @Override
    int querySeconds(CallTimeout timeout) {
        return timeout.querySecondsPastNetwork();
    }

    @Override
    OptionalLong take(Connection connection, LockRow row, WaitQueue queue, CallTimeout timeout) throws SQLException {
        // No JDBC query timeout. Its cancel would hang on a silent server.
        try (PreparedStatement statement = connection.prepareStatement(take)) {
            statement.setString(1, timeout.serverWaitMillis() + "ms");
            bindTake(statement, 2, row);
            int next = 6;
            if (waiters == Waiters.QUEUE) {
                statement.setString(next++, queue.leaving());
                statement.setString(next++, queue.channel());
                statement.setLong(next++, queue.placeMicros());
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
     * Takes {@code channel} (if not null) off the key's queue and, when the key is free, wakes the
     * first registry left in it. A no-op on a table without a queue.
     */
    void passOn(Connection connection, String key, String channel, CallTimeout timeout) throws SQLException {
        if (waiters != Waiters.QUEUE) {
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

    /** Creators of one table take turns on an advisory lock, as concurrent creates can fail here. */
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

    /** The advisory lock id of creating {@code table}, the same in every JVM. */
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
