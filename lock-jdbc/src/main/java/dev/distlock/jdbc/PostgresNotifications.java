package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes PostgreSQL waiters when their key is released ({@code pg_notify}). One connection per
 * registry, from {@link DirectConnections}, listens on the registry's own wake-up channel and on
 * the table's channel. Waiters also poll, so a lost notification costs latency, never a release.
 * A wake-up that no waiter takes goes to {@link #onUnclaimed}, to be passed on.
 */
final class PostgresNotifications implements ReleaseSignals {

    /** Pauses behind the notifications, which usually end a wait first. */
    static final Backoff SAFETY_NET = new Backoff(Duration.ofMillis(5), Duration.ofMillis(250));

    /** How long one read of the listener connection waits for a notification before checking whether to stop. */
    private static final int READ_MILLIS = 500;

    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * How long a place in the queue lasts after its waiters' last attempt. Four of the longest
     * pauses, so that a live queue never lapses and an abandoned one lapses about a second later.
     */
    static final long PLACE_MICROS = 4 * SAFETY_NET.max().toNanos() / 1000;

    /** The prefix of the registries' own wake-up channels. */
    static final String WAKE_CHANNEL_PREFIX = "distlock.wake.";

    private static final Logger log = LoggerFactory.getLogger(PostgresNotifications.class);

    private final DataSource listenerConnections;
    private final String channel;
    private final String address;
    private final String wakeChannel =
            WAKE_CHANNEL_PREFIX + UUID.randomUUID().toString().replace("-", "");
    private final ConcurrentHashMap<String, Set<Semaphore>> waiters = new ConcurrentHashMap<>();
    private volatile Consumer<String> unclaimed = key -> {};
    private volatile boolean listening;
    private volatile boolean closed;
    private Thread listener;
    private long nextTryNanos = System.nanoTime();

    /** @param listenerConnections opens the listening connection, apart from the application's pool */
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
        return new KeyWaiter(key);
    }

    @Override
    public boolean wakesOne() {
        return listening;
    }

    /** This registry's channel while it listens, kept on a grant while other waiters of this registry wait for the key. */
    @Override
    public WaitQueue queue(Subscription waiter) {
        if (!listening || !(waiter instanceof KeyWaiter keyWaiter)) {
            return WaitQueue.NONE;
        }
        Set<Semaphore> keyWaiters = waiters.get(keyWaiter.key);
        return new WaitQueue(wakeChannel, keyWaiters != null && keyWaiters.size() > 1, PLACE_MICROS);
    }

    @Override
    public void onUnclaimed(Consumer<String> handler) {
        unclaimed = handler;
    }

    /** One waiter of one key, released by each notification of the key. */
    private final class KeyWaiter implements Subscription {
        private final String key;
        private final Semaphore released = new Semaphore(0);

        KeyWaiter(String key) {
            this.key = key;
            waiters.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(released);
        }

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
                // The channel as the connection's name tells operators (and pg_stat_activity) whose it is.
                statement.execute("SET application_name = '" + wakeChannel + "'");
                statement.execute("LISTEN \"" + channel + "\"");
                statement.execute("LISTEN \"" + wakeChannel + "\"");
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
                        String key = notification.getParameter();
                        if (!wake(waiters.get(key)) && wakeChannel.equals(notification.getName())) {
                            unclaimed.accept(key);
                        }
                    }
                }
            }
            try (Statement statement = connection.createStatement()) {
                // In case the connection goes back to a pool (a notificationDataSource of the application's).
                statement.execute("UNLISTEN *");
                statement.execute("RESET application_name");
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

    /** Wakes the waiters of a key. False when there were none. */
    private static boolean wake(Set<Semaphore> keyWaiters) {
        if (keyWaiters == null || keyWaiters.isEmpty()) {
            return false;
        }
        keyWaiters.forEach(Semaphore::release);
        return true;
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
