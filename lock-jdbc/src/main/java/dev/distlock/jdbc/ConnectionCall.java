package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.Executor;

/**
 * Runs one call's work on a borrowed connection, bounded by the call's network timeout. It commits
 * or rolls back on its own and hands the connection back as it was lent.
 */
final class ConnectionCall {

    /** Network timeouts are set through it. The drivers in use apply them to the socket and ignore it. */
    private static final Executor DIRECT = Runnable::run;

    private ConnectionCall() {}

    /** Runs {@code work}, in one transaction when {@code transaction} or the pool does not auto-commit. */
    static <T> T run(Connection connection, CallTimeout timeout, boolean transaction, LockDatabase.Work<T> work)
            throws SQLException {
        int networkTimeout = limitNetworkWait(connection, timeout);
        try {
            boolean autoCommit = connection.getAutoCommit();
            if (autoCommit && !transaction) {
                return work.run(connection);
            }
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection, e);
                throw e;
            } finally {
                if (autoCommit) {
                    restoreAutoCommit(connection);
                }
            }
        } finally {
            restoreNetworkWait(connection, networkTimeout);
        }
    }

    /** Sets the network timeout for this call. Returns the one to restore, or -1 when the driver has none. */
    private static int limitNetworkWait(Connection connection, CallTimeout timeout) throws SQLException {
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, timeout.networkMillis());
            return previous;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            return -1;
        }
    }

    /** Gives the connection back with the pool's own network timeout (a broken one is discarded by the pool anyway). */
    private static void restoreNetworkWait(Connection connection, int networkTimeout) {
        if (networkTimeout < 0) {
            return;
        }
        try {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(DIRECT, networkTimeout);
            }
        } catch (SQLException e) {
            // The connection broke. The pool checks it before lending it again.
        }
    }

    /** Gives the connection back auto-committing, as it was lent (a broken one is discarded by the pool anyway). */
    private static void restoreAutoCommit(Connection connection) {
        try {
            if (!connection.isClosed()) {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            // The connection broke. The pool checks it before lending it again.
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
