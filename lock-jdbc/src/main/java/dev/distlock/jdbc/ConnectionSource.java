package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Connections of the application's {@link DataSource}, each waited for no longer than the call
 * that needs it (contract 8). Borrowing runs on up to {@link #HELPERS} helper threads, as a pool
 * bounds it only by its own timeout. A connection that arrives after its caller left goes back.
 */
final class ConnectionSource implements AutoCloseable {

    /** Helper threads borrowing at once. More would only wait longer when the pool has nothing to lend. */
    static final int HELPERS = 8;

    private final DataSource dataSource;
    private final ThreadPoolExecutor helpers;

    ConnectionSource(DataSource dataSource) {
        this.dataSource = dataSource;
        this.helpers =
                new ThreadPoolExecutor(HELPERS, HELPERS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "distlock-jdbc-connect");
                    thread.setDaemon(true);
                    return thread;
                });
        helpers.allowCoreThreadTimeOut(true);
    }

    /**
     * A connection of the pool, waited for at most {@link CallTimeout#connectionWaitMillis()}. An
     * interrupt does not end the wait, so that a release completes.
     *
     * @throws NoConnection when no connection came in time
     * @throws SQLException the pool's own failure
     */
    Connection get(CallTimeout timeout) throws SQLException {
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(timeout.connectionWaitMillis());
        Request request = new Request();
        try {
            helpers.execute(request);
        } catch (RejectedExecutionException e) {
            // not a connection failure, so nothing to ride out
            throw new SQLException("the lock registry is closed", "55000", e);
        }
        return request.await(waitNanos);
    }

    @Override
    public void close() {
        helpers.shutdownNow();
    }

    /** No connection within the call's time, as the pool is exhausted or the database silent. */
    static final class NoConnection extends SQLTransientConnectionException {

        NoConnection(String message) {
            super(message, "08001");
        }
    }

    /** One borrowing, done when the connection or the pool's failure arrived, or the caller left. */
    private final class Request implements Runnable {

        private Connection connection;
        private Throwable failure;
        private boolean done;
        private boolean abandoned;

        @Override
        public void run() {
            synchronized (this) {
                if (abandoned) {
                    return;
                }
            }
            Connection borrowed = null;
            Throwable failed = null;
            try {
                borrowed = dataSource.getConnection();
            } catch (SQLException | RuntimeException | Error e) {
                failed = e;
            }
            synchronized (this) {
                if (!abandoned) {
                    connection = borrowed;
                    failure = failed;
                    done = true;
                    notifyAll();
                    return;
                }
            }
            giveBack(borrowed);
        }

        synchronized Connection await(long waitNanos) throws SQLException {
            long end = System.nanoTime() + waitNanos;
            boolean interrupted = false;
            try {
                for (long left = waitNanos; !done && left > 0; left = end - System.nanoTime()) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (!done) {
                abandoned = true;
                throw new NoConnection("no connection from the DataSource within "
                        + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms, the time this call had left: its"
                        + " pool is exhausted (the application holds all its connections, or it is too small)"
                        + " or the database does not answer. Give the pool more connections or find what holds"
                        + " them");
            }
            if (failure instanceof SQLException e) {
                throw e;
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            return connection;
        }

        private void giveBack(Connection late) {
            if (late != null) {
                try {
                    late.close();
                } catch (SQLException e) {
                    // the pool discards a broken connection anyway
                }
            }
        }
    }
}
