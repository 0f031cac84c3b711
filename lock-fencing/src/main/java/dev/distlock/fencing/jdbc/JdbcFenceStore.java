package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceRule;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Fences in a table of the application's database, checked inside the caller's transaction: the
 * resource's row is raised and stays locked until that transaction ends, so a stale holder's
 * transaction and the next holder's never interleave, and a stale token fails the transaction.
 *
 * <p>{@link #admitWrite(String, FencingClaim)} and {@link #admitRead(String, FencingClaim)} join
 * the current Spring-managed transaction on the store's {@link DataSource} (so {@code JdbcTemplate},
 * {@code JdbcClient} and JPA writes in it are covered) and make it roll back when they refuse;
 * outside a transaction they check and raise in one transaction of their own. The {@link
 * Connection} forms take part in the caller's own JDBC transaction. Call them first in the
 * transaction, before any read the write depends on; see {@code docs/fencing.md}.
 */
public final class JdbcFenceStore implements FenceStore {

    /** The longest lock key the table keeps (the memory backend's limit, the largest of all backends). */
    static final int MAX_LOCK_KEY_LENGTH = 4096;

    private static final Executor DIRECT = Runnable::run;
    private static final Duration NETWORK_SLACK = Duration.ofSeconds(1);

    private final DataSource dataSource;
    private final FenceTableName table;
    private final boolean initializeSchema;
    private final Duration timeout;
    private volatile FenceTable ready;

    private JdbcFenceStore(Builder builder) {
        this.dataSource = builder.dataSource instanceof TransactionAwareDataSourceProxy proxy
                ? proxy.getTargetDataSource()
                : builder.dataSource;
        this.table = new FenceTableName(builder.tableName);
        this.initializeSchema = builder.initializeSchema;
        this.timeout = builder.timeout;
    }

    /** A store over the fence table in {@code dataSource}'s database. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The fence table's name. */
    public String tableName() {
        return table.value();
    }

    /**
     * Admits {@code claim} as a writer of {@code resource} in the current Spring transaction (or one
     * of its own when there is none); the row stays locked until that transaction ends.
     */
    @Override
    public Fence admitWrite(String resource, FencingClaim claim) {
        check(resource, claim);
        return inTransaction("admitting a write to", resource, claim, connection -> write(connection, resource, claim));
    }

    /**
     * Admits {@code claim} as a writer of {@code resource} in the caller's JDBC transaction on
     * {@code connection} (auto-commit off); roll that transaction back when this throws.
     */
    public Fence admitWrite(Connection connection, String resource, FencingClaim claim) {
        check(resource, claim);
        return onCallersConnection(connection, "admitting a write to", resource, claim, c -> write(c, resource, claim));
    }

    /**
     * Checks that {@code claim} may read {@code resource} as current, in the current Spring
     * transaction; the row is share-locked until it ends, so no newer writer raises it meanwhile.
     */
    @Override
    public void admitRead(String resource, FencingClaim claim) {
        check(resource, claim);
        inTransaction("admitting a read of", resource, claim, connection -> read(connection, resource, claim));
    }

    /** As {@link #admitRead(String, FencingClaim)}, in the caller's JDBC transaction on {@code connection}. */
    public void admitRead(Connection connection, String resource, FencingClaim claim) {
        check(resource, claim);
        onCallersConnection(connection, "admitting a read of", resource, claim, c -> read(c, resource, claim));
    }

    @Override
    public Optional<Fence> fenceOf(String resource) {
        FenceRule.checkResource(resource);
        return inTransaction(
                "reading the fence of",
                resource,
                null,
                connection -> table().statements.read(connection, table().statements.select, resource, querySeconds()));
    }

    /**
     * Moves {@code resource} to {@code claim}'s lock key and backend, its highest token set to
     * {@code claim}'s, in the current transaction. Only once every writer under the old lock stopped.
     */
    @Override
    public Fence rebind(String resource, FencingClaim claim) {
        check(resource, claim);
        return inTransaction("rebinding", resource, claim, connection -> {
            FenceStatements statements = table().statements;
            lockRow(connection, resource, claim);
            statements.update(
                    connection,
                    statements.rebind,
                    querySeconds(),
                    claim.backend(),
                    claim.lockKey(),
                    claim.token().value(),
                    resource);
            return new Fence(resource, claim.backend(), claim.lockKey(), claim.token());
        });
    }

    private Fence write(Connection connection, String resource, FencingClaim claim) throws SQLException {
        Fence current = lockRow(connection, resource, claim);
        Fence next = FenceRule.admitWrite(resource, current, claim);
        if (!next.highest().equals(current.highest())) {
            table().statements
                    .update(
                            connection,
                            table().statements.raise,
                            querySeconds(),
                            next.highest().value(),
                            resource);
        }
        return next;
    }

    private Void read(Connection connection, String resource, FencingClaim claim) throws SQLException {
        FenceStatements statements = table().statements;
        // A read-only transaction may not lock rows (PostgreSQL refuses); its check holds at its start.
        String sql = connection.isReadOnly() ? statements.select : statements.selectShared;
        FenceRule.admitRead(
                resource,
                statements.read(connection, sql, resource, querySeconds()).orElse(null),
                claim);
        return null;
    }

    private Fence lockRow(Connection connection, String resource, FencingClaim claim) throws SQLException {
        // Empty only when another transaction's insert of the row was rolled back while this one waited.
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Fence> locked = table().statements.lockRow(connection, resource, claim, querySeconds());
            if (locked.isPresent()) {
                return locked.get();
            }
        }
        throw new IllegalStateException("The fence row of resource '" + resource + "' in table '" + table
                + "' vanished three times while being locked; is something deleting fence rows?");
    }

    /** Runs in the current Spring transaction on this store's DataSource, or in one of its own. */
    private <T> T inTransaction(String action, String resource, FencingClaim claim, Work<T> work) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            return inSpringTransaction(action, resource, claim, work);
        }
        FenceTable fenceTable = table();
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException(
                    describe(action, resource, claim) + ": could not connect to " + fenceTable.address + " ("
                            + FenceTable.causes(e) + "). Check that the database is running and reachable.",
                    e);
        }
        try (connection) {
            boolean autoCommit = connection.getAutoCommit();
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                T result = run(connection, fenceTable, action, resource, claim, work);
                connection.commit();
                return result;
            } catch (RuntimeException | SQLException e) {
                rollbackQuietly(connection, e);
                throw e;
            } finally {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            throw fenceTable.failure(describe(action, resource, claim), e);
        }
    }

    /** Joins the current Spring transaction; any failure makes it roll back. */
    private <T> T inSpringTransaction(String action, String resource, FencingClaim claim, Work<T> work) {
        try {
            FenceTable fenceTable = table();
            Connection connection = DataSourceUtils.getConnection(dataSource);
            try {
                if (autoCommit(connection, fenceTable, action, resource, claim)) {
                    throw new IllegalStateException("The current Spring transaction does not manage the DataSource"
                            + " of the fence table '" + table + "' (its connection auto-commits), so the fence of '"
                            + resource + "' could not be checked in it. Give this JdbcFenceStore the DataSource"
                            + " of the transaction manager in use.");
                }
                return run(connection, fenceTable, action, resource, claim, work);
            } finally {
                DataSourceUtils.releaseConnection(connection, dataSource);
            }
        } catch (RuntimeException e) {
            failTransaction(e);
            throw e;
        }
    }

    private <T> T onCallersConnection(
            Connection connection, String action, String resource, FencingClaim claim, Work<T> work) {
        Objects.requireNonNull(connection, "connection");
        FenceTable fenceTable = table();
        if (autoCommit(connection, fenceTable, action, resource, claim)) {
            throw new IllegalStateException("The fence of '" + resource + "' must be checked inside a transaction:"
                    + " the connection auto-commits, so the fence row would be unlocked before your writes."
                    + " Call connection.setAutoCommit(false) first, and commit after your writes.");
        }
        return run(connection, fenceTable, action, resource, claim, work);
    }

    private <T> T run(
            Connection connection,
            FenceTable fenceTable,
            String action,
            String resource,
            FencingClaim claim,
            Work<T> work) {
        int previousNetworkTimeout = limitNetworkWait(connection);
        try {
            return fenceTable.statements.boundingWaits(connection, querySeconds(), work::run);
        } catch (SQLException e) {
            throw fenceTable.failure(describe(action, resource, claim), e);
        } finally {
            restoreNetworkWait(connection, previousNetworkTimeout);
        }
    }

    private boolean autoCommit(
            Connection connection, FenceTable fenceTable, String action, String resource, FencingClaim claim) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            throw fenceTable.failure(describe(action, resource, claim), e);
        }
    }

    /**
     * Fails the current transaction, whichever manager runs it. A rollback-only mark on the JDBC
     * connection is honoured only by DataSourceTransactionManager (JpaTransactionManager, for one,
     * asks its EntityManager instead), so a synchronization also vetoes the commit: every
     * synchronizing transaction manager rolls back when one fails before commit.
     */
    private void failTransaction(RuntimeException failure) {
        if (TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder) {
            holder.setRollbackOnly();
        }
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new CommitVeto(failure));
        }
    }

    /** Rolls back the transaction it is registered with instead of committing it. */
    private record CommitVeto(RuntimeException failure) implements TransactionSynchronization {

        @Override
        public void beforeCommit(boolean readOnly) {
            throw new UnexpectedRollbackException(
                    "Transaction rolled back because a fence check in it failed: " + failure.getMessage(), failure);
        }
    }

    private FenceTable table() {
        FenceTable current = ready;
        if (current == null) {
            synchronized (this) {
                current = ready;
                if (current == null) {
                    current = FenceTable.connect(dataSource, table, initializeSchema, querySeconds());
                    ready = current;
                }
            }
        }
        return current;
    }

    private int querySeconds() {
        return (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    /** Bounds every read from the database during the check; returns the timeout to restore, -1 for none. */
    private int limitNetworkWait(Connection connection) {
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, (int) (querySeconds() * 1000L + NETWORK_SLACK.toMillis()));
            return previous;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            return -1;
        } catch (SQLException e) {
            return -1; // a broken connection: the statement reports it
        }
    }

    private static void restoreNetworkWait(Connection connection, int previous) {
        if (previous < 0) {
            return;
        }
        try {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(DIRECT, previous);
            }
        } catch (SQLException e) {
            // The connection broke during the check; its pool discards it.
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void check(String resource, FencingClaim claim) {
        FenceRule.checkResource(resource);
        Objects.requireNonNull(claim, "claim");
        if (claim.lockKey().length() > MAX_LOCK_KEY_LENGTH) {
            throw new IllegalArgumentException("The lock key of a claim on resource '" + resource + "' has "
                    + claim.lockKey().length() + " characters; the fence table keeps at most " + MAX_LOCK_KEY_LENGTH);
        }
        if (claim.backend().length() > 64) {
            throw new IllegalArgumentException("The backend name of a claim on resource '" + resource
                    + "' has over 64 characters: " + claim.backend().substring(0, 64) + "...");
        }
    }

    private String describe(String action, String resource, FencingClaim claim) {
        return "Fence store: " + action + " resource '" + resource + "'"
                + (claim == null
                        ? ""
                        : " with token " + claim.token() + " of lock '" + claim.lockKey() + "' (" + claim.backend()
                                + " backend)");
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Builds a {@link JdbcFenceStore}. */
    public static final class Builder {

        private final DataSource dataSource;
        private String tableName = FenceTableName.DEFAULT;
        private boolean initializeSchema;
        private Duration timeout = Duration.ofSeconds(10);

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The fence table; default {@code distributed_lock_fence}. */
        public Builder tableName(String tableName) {
            this.tableName = tableName;
            return this;
        }

        /** Whether to create the fence table on first use when it is missing; default false. */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        /**
         * How long one check may wait for the fence row (held by another holder's transaction) and for
         * the database; rounded up to whole seconds. Default 10 s.
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("The fence store's timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        public JdbcFenceStore build() {
            return new JdbcFenceStore(this);
        }
    }
}
