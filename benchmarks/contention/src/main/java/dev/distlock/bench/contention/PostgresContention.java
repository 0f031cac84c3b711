package dev.distlock.bench.contention;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.bench.Benchmark.Operation;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The PostgreSQL server on loopback that the test suite uses (or the one at {@code
 * DISTLOCK_POSTGRES_URL}), a lock table of this run's own: distlock's {@code JdbcLockRegistry} alone,
 * every registry on a HikariCP pool of its own (release notifications on, as by default).
 */
final class PostgresContention implements Backend {

    /** Connections left for everyone else on the shared server. */
    private static final int SPARE_CONNECTIONS = 20;

    private final String url = env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    private final String user = env("DISTLOCK_POSTGRES_USER", "postgres");
    private final String password = env("DISTLOCK_POSTGRES_PASSWORD", "");
    private final String table =
            "bench_contention_" + UUID.randomUUID().toString().substring(0, 8);
    private boolean tablesCreated;

    @Override
    public String describe() {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW server_version")) {
            row.next();
            return "PostgreSQL " + row.getString(1).replaceAll(" .*", "") + " at " + url.replace("jdbc:", "");
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + url + " did not answer; start it as for the tests", e);
        }
    }

    @Override
    public ReadWriteMix.Result readWrite(Settings settings) throws Exception {
        createTables();
        try (Closer closer = new Closer()) {
            LockRegistry a = registry(closer, "bench-rw-a", 10);
            LockRegistry b = registry(closer, "bench-rw-b", 10);
            FencedLock read = a.readWriteLock("bench-read").readLock();
            FencedLock write = a.readWriteLock("bench-write").writeLock();
            FencedLock plainA = a.obtain("bench-plain");
            FencedLock plainB = b.obtain("bench-plain");
            return ReadWriteMix.Alone.measure(
                    "postgresql",
                    ReadWriteMix.Subject.distlock("distlock", a, b, "bench-rw"),
                    () -> read.acquire().close(),
                    () -> write.acquire().close(),
                    List.of(
                            () -> plainA.acquire().close(),
                            () -> plainB.acquire().close()),
                    settings);
        }
    }

    /**
     * As many registries as {@code contention.waiters} asks, fewer if the server's {@code
     * max_connections} cannot take 2 connections for each (its pool's one and its listening one)
     * beside what is open and a margin for others.
     */
    @Override
    public List<ManyWaiters.Outcome> manyWaiters(Settings settings) throws Exception {
        createTables();
        int fit = freeConnections() / 2;
        int waiters = Math.max(1, Math.min(settings.postgresWaiters(), fit));
        String limited = "";
        if (waiters < settings.waiters()) {
            limited = waiters == fit
                    ? String.format(
                            Locale.ROOT,
                            " (not %d: the server's connections, beside those open and %d spare, fit 2 for each of"
                                    + " %d)",
                            settings.waiters(),
                            SPARE_CONNECTIONS,
                            fit)
                    : String.format(
                            Locale.ROOT, " (not %d: `contention.postgresWaiters` asked for fewer)", settings.waiters());
        }
        try (Closer closer = new Closer()) {
            List<Operation> ours = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                FencedLock lock = registry(closer, "bench-many-" + i, 1).obtain("bench-many");
                ours.add(() -> lock.acquire().close());
            }
            PostgresCounters counters =
                    closer.add(new PostgresCounters(url, user, password, "distlock." + table, waiters));
            return ManyWaiters.measure(
                    "postgresql",
                    List.of(new ManyWaiters.Subject(
                            "distlock",
                            ours,
                            counters,
                            waiters + " clients" + limited + ", a thread each, a `JdbcLockRegistry` and a pool of 1"
                                    + " connection each (plus its listening connection)")),
                    settings);
        }
    }

    /**
     * Creates the lock tables through one registry before the others start: many registries creating
     * a table at once on their first lock could collide in PostgreSQL's catalog.
     */
    private void createTables() throws Exception {
        if (tablesCreated) {
            return;
        }
        try (Closer closer = new Closer()) {
            HikariDataSource pool = closer.add(pool("bench-schema", 1));
            LockRegistry registry = closer.add(JdbcLockRegistry.builder(pool)
                    .tableName(table)
                    .initializeSchema(true)
                    .build());
            registry.obtain("bench-schema").acquire().close();
            registry.readWriteLock("bench-schema").writeLock().acquire().close();
        }
        tablesCreated = true;
    }

    private int freeConnections() throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT current_setting('max_connections')::int - (SELECT count(*) FROM pg_stat_activity"
                                + " WHERE backend_type = 'client backend')")) {
            row.next();
            return Math.max(0, row.getInt(1) - SPARE_CONNECTIONS);
        }
    }

    @Override
    public LockRegistry newRegistry(Closer closer) throws Exception {
        createTables();
        return registry(closer, "bench-overrun", 4);
    }

    private LockRegistry registry(Closer closer, String name, int connections) {
        HikariDataSource pool = closer.add(pool(name, connections));
        return closer.add(JdbcLockRegistry.builder(pool).tableName(table).build());
    }

    private HikariDataSource pool(String name, int connections) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(connections);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    /** Drops this run's tables. */
    @Override
    public LeaderHandOver.Result leaderHandOver() throws Exception {
        createTables();
        try (Closer closer = new Closer()) {
            return LeaderHandOver.measure(
                    "postgresql", registry(closer, "bench-leader-a", 2), registry(closer, "bench-leader-b", 2));
        }
    }

    @Override
    public void close() {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table + "_rw");
            statement.execute("DROP TABLE IF EXISTS " + table);
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop the tables " + table + "*: drop them by hand", e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
