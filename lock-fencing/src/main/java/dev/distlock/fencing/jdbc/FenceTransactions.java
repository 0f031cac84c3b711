package dev.distlock.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Where a {@link JdbcFenceStore}'s checks run: in the current Spring transaction on the store's
 * {@link DataSource} (failing it when a check fails), in a transaction of their own, or in the
 * caller's JDBC transaction, each with the database's waits bounded by the store's timeout. Finds
 * (and creates, when asked) the fence table on first use.
 */
final class FenceTransactions {

    private static final Executor DIRECT = Runnable::run;
    private static final Duration NETWORK_SLACK = Duration.ofSeconds(1);

    private final DataSource dataSource;
    private final FenceTableName table;
    private final boolean initializeSchema;
    private final Duration timeout;
    private volatile FenceTable ready;

    FenceTransactions(DataSource dataSource, FenceTableName table, boolean initializeSchema, Duration timeout) {
        this.dataSource = dataSource;
        this.table = table;
        this.initializeSchema = initializeSchema;
        this.timeout = timeout;
    }

    FenceTableName tableName() {
        return table;
    }

    /** Runs in the current Spring transaction on this store's DataSource, or in one of its own. */
    <T> T inTransaction(FenceOperation operation, Work<T> work) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            return inSpringTransaction(operation, work);
        }
        FenceTable fenceTable = table();
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException(
                    operation.describe() + ": could not connect to " + fenceTable.address + " (" + FenceTable.causes(e)
                            + "). Check that the database is running and reachable.",
                    e);
        }
        try (connection) {
            boolean autoCommit = connection.getAutoCommit();
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                T result = run(connection, fenceTable, operation, work);
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
            throw fenceTable.failure(operation.describe(), e);
        }
    }

    /** Joins the current Spring transaction. Any failure makes it roll back. */
    private <T> T inSpringTransaction(FenceOperation operation, Work<T> work) {
        try {
            FenceTable fenceTable = table();
            Connection connection = DataSourceUtils.getConnection(dataSource);
            try {
                if (autoCommit(connection, fenceTable, operation)) {
                    throw new IllegalStateException("The current Spring transaction does not manage the DataSource"
                            + " of the fence table '" + table + "' (its connection auto-commits), so the fence of '"
                            + operation.resource() + "' could not be checked in it. Give this JdbcFenceStore the"
                            + " DataSource of the transaction manager in use.");
                }
                return run(connection, fenceTable, operation, work);
            } finally {
                DataSourceUtils.releaseConnection(connection, dataSource);
            }
        } catch (RuntimeException e) {
            failTransaction(e);
            throw e;
        }
    }

    <T> T onCallersConnection(Connection connection, FenceOperation operation, Work<T> work) {
        Objects.requireNonNull(connection, "connection");
        FenceTable fenceTable = table();
        if (autoCommit(connection, fenceTable, operation)) {
            throw new IllegalStateException("The fence of '" + operation.resource() + "' must be checked inside a"
                    + " transaction: the connection auto-commits, so the fence row would be unlocked before your"
                    + " writes. Call connection.setAutoCommit(false) first, and commit after your writes.");
        }
        return run(connection, fenceTable, operation, work);
    }

    private <T> T run(Connection connection, FenceTable fenceTable, FenceOperation operation, Work<T> work) {
        int previousNetworkTimeout = limitNetworkWait(connection);
        try {
            return fenceTable.statements.boundingWaits(connection, querySeconds(), work::run);
        } catch (SQLException e) {
            throw fenceTable.failure(operation.describe(), e);
        } finally {
            restoreNetworkWait(connection, previousNetworkTimeout);
        }
    }

    private boolean autoCommit(Connection connection, FenceTable fenceTable, FenceOperation operation) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            throw fenceTable.failure(operation.describe(), e);
        }
    }

    /**
     * Fails the current transaction, whichever manager runs it. A rollback-only mark on the JDBC
     * connection is honoured only by DataSourceTransactionManager (JpaTransactionManager, for one,
     * asks its EntityManager instead), so a synchronization also vetoes the commit. Every
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

    FenceTable table() {
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

    int querySeconds() {
        return (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    /** Bounds every read from the database during the check. Returns the timeout to restore, -1 for none. */
    private int limitNetworkWait(Connection connection) {
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, (int) (querySeconds() * 1000L + NETWORK_SLACK.toMillis()));
            return previous;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            return -1;
        } catch (SQLException e) {
            return -1; // a broken connection, which the statement reports
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
            // The connection broke during the check. Its pool discards it.
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }
}
