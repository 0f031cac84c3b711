package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets the lock table up on the first call that needs it. It connects, checks or creates the
 * table, compares the clocks and starts the release signals and the upkeep. A registry can thus
 * be built while the database is down. A failed set-up is tried again by the next call.
 */
final class LockTableSetup implements AutoCloseable {

    /** Above this, the JVM's clock and the database's are reported as apart. */
    private static final Duration REPORTED_CLOCK_OFFSET = Duration.ofSeconds(1);

    /** The longest any one set-up statement (metadata, probe, DDL) may take, whatever the deadline. */
    private static final Duration SET_UP_CAP = Duration.ofSeconds(30);

    /** The least time the set-up statements get, so that a zero wait survives a busy database. */
    private static final Duration SET_UP_FLOOR = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(LockTableSetup.class);

    private final DataSource dataSource;
    private final ConnectionSource connections;
    private final DataSource notificationDataSource;
    private final TableName tableName;
    private final boolean initializeSchema;
    private final boolean releaseNotifications;
    private final Duration sweepInterval;
    private final Clock clock;
    private final String configuredAddress;
    private final ReentrantLock settingUp = new ReentrantLock();
    private final Withdrawals withdrawals = new Withdrawals();
    private volatile LockDatabase database;
    private volatile Ready ready;
    private boolean closed;
    /** Started by the first wait of either table. Guarded by {@code this}. */
    private ReleaseSignals signals;

    /** The lock table once usable, and what runs beside it. */
    record Ready(
            LockDatabase db,
            LockTable table,
            LockSchema schema,
            ReleaseSignals signals,
            TableUpkeep upkeep,
            Duration clockOffset) {}

    /**
     * How the table is set up and kept.
     *
     * @param initializeSchema whether a missing table is created
     * @param releaseNotifications whether waiters may hear of releases rather than poll
     * @param sweepInterval how often rows nobody released are removed
     * @param clock the JVM's clock, compared with the database's
     */
    record Options(boolean initializeSchema, boolean releaseNotifications, Duration sweepInterval, Clock clock) {}

    /**
     * @param notificationDataSource where PostgreSQL's listening connection comes from, or null for
     *     one opened with {@code dataSource}'s settings
     */
    LockTableSetup(DataSource dataSource, DataSource notificationDataSource, TableName tableName, Options options) {
        this.dataSource = dataSource;
        this.connections = new ConnectionSource(LockDatabase.target(dataSource));
        this.notificationDataSource = notificationDataSource;
        this.tableName = tableName;
        this.initializeSchema = options.initializeSchema();
        this.releaseNotifications = options.releaseNotifications();
        this.sweepInterval = options.sweepInterval();
        this.clock = options.clock();
        this.configuredAddress = configuredAddress(dataSource);
    }

    TableName tableName() {
        return tableName;
    }

    /** The database's address as its connections report it, or as the DataSource is configured before the first. */
    String address() {
        LockDatabase db = database;
        return db != null ? db.address : configuredAddress;
    }

    /** The database, connected once to learn its dialect and address. The table is not checked. */
    LockDatabase database(String key, CallTimeout timeout) {
        LockDatabase db = database;
        if (db != null) {
            return db;
        }
        lock(key, timeout);
        try {
            if (database == null) {
                database = LockDatabase.connect(connections, tableName, key, configuredAddress, timeout);
            }
            return database;
        } finally {
            settingUp.unlock();
        }
    }

    /** The usable lock table, set up by the first call that gets here, within {@code timeout}. */
    Ready ready(String key, CallTimeout timeout) {
        Ready current = ready;
        if (current != null) {
            return current;
        }
        lock(key, timeout);
        try {
            return ready != null ? ready : setUp(key, timeout);
        } finally {
            settingUp.unlock();
        }
    }

    /** Frees what acquisitions that gave up may have taken. Closed with this set-up. */
    Withdrawals withdrawals() {
        return withdrawals;
    }

    /** The table if already set up, or null, for calls that need nothing from a table never used. */
    Ready readyOrNull() {
        return ready;
    }

    private Ready setUp(String key, CallTimeout timeout) {
        LockDatabase connected = database(key, setUpTimeout(timeout));
        new LockSchema(connected).check(initializeSchema, key, setUpTimeout(timeout));
        LockDatabase db = new LockSchema(connected).forTable(key, setUpTimeout(timeout));
        LockSchema schema = new LockSchema(db);
        LockTable table = new LockTable(db);
        Duration offset = measureClockOffset(table, db.address, setUpTimeout(timeout));
        synchronized (this) {
            if (closed) {
                throw new LockBackendException(JdbcLockBackend.NAME, db.address, key, "the registry is closed");
            }
            ReleaseSignals signals = signals(db);
            TableUpkeep upkeep = new TableUpkeep(table, db.address, sweepInterval, withdrawals);
            signals.onUnclaimed(unclaimedKey -> upkeep.passOnWakeUp(unclaimedKey));
            ready = new Ready(db, table, schema, signals, upkeep, offset);
            return ready;
        }
    }

    /**
     * How waiters on both tables learn of releases. PostgreSQL's notifications when they are on,
     * else polling. Started once, and polling after close.
     */
    synchronized ReleaseSignals signals(LockDatabase db) {
        if (signals == null) {
            if (closed) {
                return ReleaseSignals.polling();
            }
            signals = releaseNotifications
                    ? db.dialect.releaseSignals(listenerConnections(), db.address)
                    : ReleaseSignals.polling();
        }
        return signals;
    }

    /** Connections apart from the application's pool, for one that stays open. Null when there are none. */
    private DataSource listenerConnections() {
        return notificationDataSource != null
                ? notificationDataSource
                : DirectConnections.like(dataSource).orElse(null);
    }

    /**
     * Waits for a set-up under way in another thread, as long as this call's own set-up could take.
     */
    private void lock(String key, CallTimeout timeout) {
        long nanos = Math.max(
                timeout.deadline().remainingNanos(),
                SET_UP_FLOOR.plus(CallTimeout.SLACK).toNanos());
        boolean locked;
        try {
            locked = settingUp.tryLock(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) {
            throw new LockBackendException(
                    JdbcLockBackend.NAME,
                    address(),
                    key,
                    "another call is still connecting to the database to set up the lock table '" + tableName
                            + "' and did not finish within this call's wait time. Check that the database is"
                            + " running and reachable; lock calls fail until it is.");
        }
    }

    /** The call's time for the set-up statements, at least {@link #SET_UP_FLOOR}, at most {@link #SET_UP_CAP} each. */
    static CallTimeout setUpTimeout(CallTimeout timeout) {
        Deadline deadline = timeout.deadline().remaining().compareTo(SET_UP_FLOOR) < 0
                ? Deadline.after(SET_UP_FLOOR)
                : timeout.deadline();
        return CallTimeout.until(deadline, min(timeout.cap(), SET_UP_CAP)).withAnswerBudget(timeout.overrun());
    }

    private Duration measureClockOffset(LockTable table, String address, CallTimeout timeout) {
        Instant before = clock.instant();
        Instant databaseNow = table.databaseNow(timeout);
        Instant after = clock.instant();
        Instant local = before.plus(Duration.between(before, after).dividedBy(2));
        Duration offset = Duration.between(databaseNow, local);
        if (offset.abs().compareTo(REPORTED_CLOCK_OFFSET) > 0) {
            log.warn(
                    "This JVM's clock is {} {} the clock of the database at {}. Locks are not affected (their expiry"
                            + " is decided by the database's clock), but times in logs and in the lock table's"
                            + " expires_at column will not line up; check NTP on both hosts.",
                    offset.abs(),
                    offset.isNegative() ? "behind" : "ahead of",
                    address);
        }
        return offset;
    }

    /** Stops the signals and the upkeep if they were started. A set-up still under way starts none. */
    @Override
    public void close() {
        Ready current;
        ReleaseSignals started;
        synchronized (this) {
            closed = true;
            current = ready;
            started = signals;
        }
        if (started != null) {
            started.close();
        }
        if (current != null) {
            current.upkeep().close();
        }
        withdrawals.close();
        connections.close();
    }

    /** The JDBC URL the DataSource says it is configured with, for messages before the first connection. */
    private static String configuredAddress(DataSource dataSource) {
        for (String getter : new String[] {"getJdbcUrl", "getUrl", "getURL"}) {
            try {
                Method method = dataSource.getClass().getMethod(getter);
                if (method.getReturnType() == String.class && method.invoke(dataSource) instanceof String url) {
                    return JdbcUrls.withoutCredentials(url);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // not this getter
            }
        }
        return "the application's DataSource";
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
