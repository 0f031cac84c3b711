package dev.distlock.jdbc;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.rw.ReadWriteLocks;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.RegistryBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks kept as rows of a lock table in PostgreSQL, MySQL/MariaDB or H2, over the application's
 * {@link DataSource}. A held key's row carries its owner, the holder's description, an expiry
 * computed by the database's clock and a {@code fence} column that gives the fencing tokens; a
 * release deletes the row. Lock statements run in their own short transactions on connections
 * borrowed only for the statement.
 */
public final class JdbcLockRegistry extends LockRegistrySupport {

    private static final Logger log = LoggerFactory.getLogger(JdbcLockRegistry.class);

    /** Above this, the JVM's clock and the database's are reported as apart. */
    private static final Duration REPORTED_CLOCK_OFFSET = Duration.ofSeconds(1);

    private final TableName table;
    private final Duration clockOffset;

    private JdbcLockRegistry(
            JdbcLockBackend backend,
            TableName table,
            RegistryOptions options,
            Duration clockOffset,
            ReadWriteLocks readWriteLocks) {
        // Read/write locks live in the table <table name>_rw, apart from obtain() locks of the same
        // key; that table is checked (or created, with initializeSchema) on first use.
        super(backend, readWriteLocks, options);
        this.table = table;
        this.clockOffset = clockOffset;
    }

    /** A builder over {@code dataSource}, which the registry uses but never closes. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The lock table's name. */
    public String tableName() {
        return table.value();
    }

    /**
     * How far the clock given to the builder was ahead of the database's clock at start-up
     * (negative: behind). Reported only; expiry never depends on it.
     */
    Duration clockOffset() {
        return clockOffset;
    }

    private static Duration measureClockOffset(LockTable table, String address, Clock clock) {
        Instant before = clock.instant();
        Instant database = table.databaseNow();
        Instant after = clock.instant();
        Instant local = before.plus(Duration.between(before, after).dividedBy(2));
        Duration offset = Duration.between(database, local);
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

    /** Builds a {@link JdbcLockRegistry}; {@link #build()} checks the lock table. */
    public static final class Builder extends RegistryBuilder<Builder, JdbcLockRegistry> {

        private final DataSource dataSource;
        private TableName tableName = new TableName(TableName.DEFAULT);
        private boolean initializeSchema;
        private boolean releaseNotifications = true;
        private Duration sweepInterval = Duration.ofMinutes(1);
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The lock table, default {@code distributed_lock}; a plain identifier, optionally
         * {@code schema.table}. Anything else is rejected, as the name goes into SQL text.
         */
        public Builder tableName(String tableName) {
            this.tableName = new TableName(tableName);
            return this;
        }

        /** Create the table (if it does not exist) on {@link #build()}; by default a missing table fails the build. */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        /**
         * Whether waiters on PostgreSQL are woken by {@code LISTEN}/{@code NOTIFY} when a key is
         * released (default true). The registry then keeps one connection of the pool for listening
         * once it first waits; turn it off for a pool too small to spare one. Other databases poll.
         */
        public Builder releaseNotifications(boolean releaseNotifications) {
            this.releaseNotifications = releaseNotifications;
            return this;
        }

        /**
         * How often the registry deletes rows that nobody released (holders that crashed or lost
         * their connection), default one minute. A release deletes its own row at once.
         */
        public Builder sweepInterval(Duration sweepInterval) {
            if (sweepInterval == null || sweepInterval.isNegative() || sweepInterval.isZero()) {
                throw new IllegalArgumentException(
                        "The lock table's sweep interval must be positive, was " + sweepInterval + " (jdbc backend)");
            }
            this.sweepInterval = sweepInterval;
            return this;
        }

        /**
         * The clock compared with the database's at start-up, to warn when they are apart. It is
         * never used for expiry, which the database decides by its own clock.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Connects, detects the database, checks (or creates) the table.
         *
         * @throws IllegalStateException when the table is missing and {@link #initializeSchema} is off,
         *     with the DDL to create it
         * @throws dev.distlock.core.LockBackendException when the database cannot be reached
         */
        @Override
        public JdbcLockRegistry build() {
            LockDatabase db = LockDatabase.connect(dataSource, tableName);
            new LockSchema(db).check(initializeSchema);
            LockTable table = new LockTable(db);
            Duration offset = measureClockOffset(table, db.address, clock);
            ReleaseSignals signals = releaseNotifications
                    ? db.dialect.releaseSignals(db.dataSource, db.address)
                    : ReleaseSignals.polling();
            JdbcLockBackend backend = new JdbcLockBackend(db, table, signals, sweepInterval);
            return new JdbcLockRegistry(
                    backend,
                    tableName,
                    options(),
                    offset,
                    JdbcReadWriteBackend.locks(dataSource, tableName.value(), initializeSchema, options()));
        }
    }
}
