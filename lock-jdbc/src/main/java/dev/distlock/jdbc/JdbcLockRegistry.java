package dev.distlock.jdbc;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Locks kept as rows of a lock table in PostgreSQL, MySQL/MariaDB or H2, over the application's
 * {@link DataSource}. A held key's row carries its owner, the holder's description, an expiry by
 * the database's clock, and the {@code fence} that gives the fencing tokens. A release deletes the
 * row. Each lock statement runs in its own short transaction on a connection borrowed for it.
 */
public final class JdbcLockRegistry extends LockRegistrySupport {

    private final TableName table;
    private final JdbcLockBackend backend;

    private JdbcLockRegistry(
            JdbcLockBackend backend, TableName table, RegistryOptions options, ReadWriteLocks readWriteLocks) {
        // Read/write locks live in the table <table name>_rw, checked or created on first use.
        super(backend, readWriteLocks, options);
        this.table = table;
        this.backend = backend;
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
     * How far the builder's clock was ahead of the database's clock when the table was set up,
     * negative when behind. The table is set up now if no call has yet. Expiry never depends on it.
     *
     * @return the offset of the builder's clock from the database's
     */
    Duration clockOffset() {
        return backend.clockOffset(Duration.ofSeconds(5));
    }

    /**
     * Builds a {@link JdbcLockRegistry} without connecting. The first lock call or {@link
     * JdbcLockRegistry#verify} connects and checks (or creates) the lock table within its own time.
     * A call that fails leaves it to the next.
     */
    public static final class Builder extends RegistryBuilder<Builder, JdbcLockRegistry> {

        private final DataSource dataSource;
        private DataSource notificationDataSource;
        private TableName tableName = new TableName(TableName.DEFAULT);
        private boolean initializeSchema;
        private boolean releaseNotifications = true;
        private Duration sweepInterval = Duration.ofMinutes(1);
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The lock table, {@code distributed_lock} by default. A plain identifier, optionally
         * {@code schema.table}. Anything else is rejected, as the name goes into SQL text.
         */
        public Builder tableName(String tableName) {
            this.tableName = new TableName(tableName);
            return this;
        }

        /**
         * Create the table on first use if it does not exist. By default a missing table fails
         * {@code verify} and lock calls, with the DDL to run.
         */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        /**
         * Whether waiters on PostgreSQL are woken by {@code LISTEN}/{@code NOTIFY} when a key is
         * released (default true). The registry then keeps one connection open for listening once it
         * first waits, never one of the pool's (see {@link #notificationDataSource}). Other databases poll.
         */
        public Builder releaseNotifications(boolean releaseNotifications) {
            this.releaseNotifications = releaseNotifications;
            return this;
        }

        /**
         * Where PostgreSQL's listening connection comes from, a DataSource that opens connections of
         * its own rather than the application's pool. By default one is opened with the URL, user,
         * password and driver properties of the registry's DataSource. When it says none, waiters poll.
         */
        public Builder notificationDataSource(DataSource notificationDataSource) {
            this.notificationDataSource = Objects.requireNonNull(notificationDataSource, "notificationDataSource");
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
         * The clock compared with the database's on first use, to warn when they are apart. It is
         * never used for expiry, which the database decides by its own clock.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The registry. It connects on first use, so it can be built while the database is down. */
        @Override
        public JdbcLockRegistry build() {
            LockTableSetup setup = new LockTableSetup(
                    dataSource,
                    notificationDataSource,
                    tableName,
                    new LockTableSetup.Options(initializeSchema, releaseNotifications, sweepInterval, clock));
            return new JdbcLockRegistry(
                    new JdbcLockBackend(setup, options().answerBudget()),
                    tableName,
                    options(),
                    JdbcReadWriteBackend.locks(setup, initializeSchema, options()));
        }
    }
}
