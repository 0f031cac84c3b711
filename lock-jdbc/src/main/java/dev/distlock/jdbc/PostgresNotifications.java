package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes PostgreSQL waiters when a release deletes their key's row ({@code pg_notify} on the
 * table's channel, sent when the release commits). One connection per registry listens, opened
 * on a thread of its own when the registry first waits and kept until it closes; it comes from a
 * DataSource of its own (see {@link DirectConnections}), never from the application's pool, and
 * waiters hold none. Until it listens, and behind it, waiters poll (with longer pauses once it
 * listens), so a lost notification, or a listener that could not connect, costs latency, never a
 * missed release; waiters never wait for it to connect.
 */
final class PostgresNotifications implements ReleaseSignals {

    /** Pauses behind the notifications, which usually end a wait first. */
    static final Backoff SAFETY_NET = new Backoff(Duration.ofMillis(5), Duration.ofMillis(250));

    /** How long one read of the listener connection waits for a notification before checking whether to stop. */
    private static final int READ_MILLIS = 500;

    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Logger log = LoggerFactory.getLogger(PostgresNotifications.class);

    private final DataSource listenerConnections;
    private final String channel;
    private final String address;
    private final ConcurrentHashMap<String, Set<Semaphore>> waiters = new ConcurrentHashMap<>();
    private volatile boolean listening;
    private volatile boolean closed;
    private Thread listener;
    private long nextTryNanos = System.nanoTime();

    /** @param listenerConnections opens the listening connection; not the application's pool */
    PostgresNotifications(DataSource listenerConnections, String channel, String address) {
        this.listenerConnections = listenerConnections;
        this.channel = channel;
        this.address = address;
    }

    /** Whether PostgreSQL's JDBC driver, whose notification API this uses, is on the classpath. */
    static boolean available() {
        try {
            Class.forName("org.postgresql.PGConnection", false, PostgresNotifications.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Override
    public Backoff backoff() {
        return listening ? SAFETY_NET : ReleaseSignals.POLLING;
    }

    @Override
    public Subscription subscribe(String key) {
        startListening();
        Semaphore released = new Semaphore(0);
        waiters.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(released);
        return new Subscription() {
            @Override
            public void await(long nanos) throws InterruptedException {
                released.tryAcquire(nanos, TimeUnit.NANOSECONDS);
                released.drainPermits();
            }

            @Override
            public void close() {
                waiters.computeIfPresent(key, (k, set) -> {
                    set.remove(released);
                    return set.isEmpty() ? null : set;
                });
            }
        };
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = listener;
        }
        if (running != null) {
            try {
                running.join(READ_MILLIS * 2L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Starts the listener thread, unless it runs, or failed less than {@link #RETRY_NANOS} ago. */
    private synchronized void startListening() {
        if (listener != null || closed || System.nanoTime() - nextTryNanos < 0) {
            return;
        }
        nextTryNanos = System.nanoTime() + RETRY_NANOS;
        listener = new Thread(this::listen, "distlock-jdbc-listener");
        listener.setDaemon(true);
        listener.start();
    }

    private void listen() {
        Connection connection = null;
        try {
            connection = listenerConnections.getConnection();
            try (Statement statement = connection.createStatement()) {
                statement.execute("LISTEN \"" + channel + "\"");
            }
            if (!connection.getAutoCommit()) {
                connection.commit(); // LISTEN takes effect at commit
            }
            PGConnection notifications = connection.unwrap(PGConnection.class);
            listening = true;
            while (!closed) {
                PGNotification[] received = notifications.getNotifications(READ_MILLIS);
                if (received != null) {
                    for (PGNotification notification : received) {
                        wake(waiters.get(notification.getParameter()));
                    }
                }
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("UNLISTEN \"" + channel + "\""); // in case the connection goes back to a pool
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Stopped listening for lock releases on {} ({}); waiters poll", address, e.toString());
        } finally {
            listening = false;
            closeQuietly(connection);
            synchronized (this) {
                listener = null;
            }
            waiters.values().forEach(PostgresNotifications::wake);
        }
    }

    private static void wake(Set<Semaphore> keyWaiters) {
        if (keyWaiters != null) {
            keyWaiters.forEach(Semaphore::release);
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // going away anyway
            }
        }
    }
}
