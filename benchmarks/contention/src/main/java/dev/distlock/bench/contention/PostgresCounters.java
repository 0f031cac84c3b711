package dev.distlock.bench.contention;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A PostgreSQL server's counters, on connections of their own: transactions of the database
 * ({@code pg_stat_database}; each backend reports them about once a second, so a window's figure is
 * that close), wake-ups, and the CPU time of the server's processes ({@code pg_stat_activity}'s
 * pids, read from /proc when the server is local). Wake-ups are counted by listening too: a
 * notification on the lock table's channel reaches every registry listening, one on a registry's
 * own wake-up channel (the listening connections name theirs in {@code application_name}, where
 * this counter finds them, once a second) reaches that registry alone.
 */
final class PostgresCounters implements ServerCounters {

    private final Connection monitor;
    private final Connection listener;
    private static final String WAKE_CHANNELS = "distlock.wake.";

    private final String channel;
    private final long listeners;
    /** Registries woken: a notification on the table's channel counts once per listening registry. */
    private final AtomicLong wakeUps = new AtomicLong();

    private final Set<String> wakeChannels = new HashSet<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread listening;

    /** @param listeners the registries that listen on {@code channel} (each opens one listening connection) */
    PostgresCounters(String url, String user, String password, String channel, long listeners) throws SQLException {
        this.channel = channel;
        this.listeners = listeners;
        monitor = DriverManager.getConnection(url, user, password);
        listener = DriverManager.getConnection(url, user, password);
        try (Statement statement = listener.createStatement()) {
            statement.execute("LISTEN \"" + channel + "\"");
        }
        listening = new Thread(this::listen, "notification-counter");
        listening.setDaemon(true);
        listening.start();
    }

    private void listen() {
        try {
            PGConnection connection = listener.unwrap(PGConnection.class);
            long nextLook = 0;
            while (!stop.get()) {
                if (System.nanoTime() - nextLook >= 0) {
                    listenToNewWakeChannels();
                    nextLook = System.nanoTime() + 1_000_000_000L;
                }
                PGNotification[] received = connection.getNotifications(200);
                if (received != null) {
                    for (PGNotification notification : received) {
                        wakeUps.addAndGet(notification.getName().equals(channel) ? listeners : 1);
                    }
                }
            }
        } catch (SQLException e) {
            if (!stop.get()) {
                throw new IllegalStateException("the notification counter lost its connection", e);
            }
        }
    }

    /** Listens on the own channels of registries that started listening since the last look. */
    private void listenToNewWakeChannels() throws SQLException {
        Set<String> found = new HashSet<>();
        try (Statement statement = listener.createStatement();
                ResultSet rows = statement.executeQuery("SELECT DISTINCT application_name FROM pg_stat_activity"
                        + " WHERE application_name LIKE '" + WAKE_CHANNELS + "%'")) {
            while (rows.next()) {
                found.add(rows.getString(1));
            }
        }
        found.removeAll(wakeChannels);
        try (Statement statement = listener.createStatement()) {
            for (String wakeChannel : found) {
                statement.execute("LISTEN \"" + wakeChannel + "\"");
                wakeChannels.add(wakeChannel);
            }
        }
    }

    @Override
    public Snapshot snapshot() throws SQLException {
        Map<String, Long> requests = new LinkedHashMap<>();
        Map<String, Double> cpu = new HashMap<>();
        try (Statement statement = monitor.createStatement()) {
            try (ResultSet row = statement.executeQuery(
                    "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()")) {
                row.next();
                requests.put("commits", row.getLong(1));
                requests.put("rollbacks", row.getLong(2));
            }
            try (ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity")) {
                while (rows.next()) {
                    long pid = rows.getLong(1);
                    ProcessCpu.micros(pid).ifPresent(micros -> cpu.put(Long.toString(pid), micros));
                }
            }
        }
        return new Snapshot(requests, wakeUps.get(), 1, cpu.isEmpty() ? null : cpu);
    }

    @Override
    public String requests() {
        return "transactions of the database (`pg_stat_database` commits and rollbacks, reported by each backend"
                + " about once a second)";
    }

    @Override
    public String wakeUps() {
        return "notifications (counted by listening too): on the table's channel × the registries listening, plus one"
                + " per notification on a registry's own wake-up channel";
    }

    @Override
    public String cpu() {
        return "the server's processes in `pg_stat_activity` (/proc; the server is shared with nothing else while"
                + " the benchmark runs)";
    }

    @Override
    public void close() {
        stop.set(true);
        try {
            listening.join(5_000);
            listener.close();
            monitor.close();
        } catch (SQLException e) {
            throw new IllegalStateException("closing the counters' connections failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
