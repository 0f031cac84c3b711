package dev.distlock.bench.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.testing.Benchmark;
import dev.distlock.core.testing.Benchmark.Result;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Acquire+release throughput of the jdbc backend on H2 (in-process), PostgreSQL and MariaDB
 * (loopback): one thread uncontended; four threads of one registry on one key (handoffs through
 * the registry's local gate); four threads of four registries, each on its own pool, on one key
 * (handoffs through the table, found by polling).
 */
public final class JdbcBenchmark {

    private static final Duration WARMUP = Duration.ofSeconds(2);
    private static final Duration MEASURE = Duration.ofSeconds(5);

    private record Database(String name, String url, String user, String password) {}

    private JdbcBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path output = Path.of(args.length > 0 ? args[0] : "benchmarks/results/jdbc.md");
        List<Database> databases = List.of(
                new Database("H2 " + org.h2.engine.Constants.VERSION, "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", ""),
                new Database(
                        "PostgreSQL",
                        env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test"),
                        env("DISTLOCK_POSTGRES_USER", "postgres"),
                        env("DISTLOCK_POSTGRES_PASSWORD", "")),
                new Database(
                        "MariaDB",
                        env("DISTLOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test"),
                        env("DISTLOCK_MARIADB_USER", "root"),
                        env("DISTLOCK_MARIADB_PASSWORD", "")));
        List<Result> results = new ArrayList<>();
        List<String> versions = new ArrayList<>();
        for (Database database : databases) {
            versions.add(run(database, results));
        }
        Benchmark.write(
                output,
                "jdbc backend",
                "Databases: " + String.join("; ", versions) + ". H2 in-process; PostgreSQL and MariaDB on loopback"
                        + " with default server settings. HikariCP pools; lease 30 s (watchdog). Warm-up "
                        + WARMUP.toSeconds() + " s, measured " + MEASURE.toSeconds() + " s per row.\n\n"
                        + "Scenarios: *1 thread* = acquire+release on one key, no contention; *4 threads, one"
                        + " registry* = handoffs through the registry's local gate; *4 threads, 4 registries* ="
                        + " handoffs between registries that each have their own pool (as separate JVMs would),"
                        + " where a waiter learns of a release only by polling (back-off 5 ms doubling to 200 ms):"
                        + " polling is not fair, the releasing thread often takes the key again before a sleeping"
                        + " waiter polls, so this row counts completed operations, not handoffs between owners.\n\n"
                        + "Load average when the run started: " + loadAverage() + " (the machine was shared with"
                        + " other builds, so absolute numbers are noisy).\n\n"
                        + "Run: `mvn -q -o install -pl lock-core,lock-jdbc -DskipTests && mvn -q -pl benchmarks/jdbc"
                        + " compile exec:java` from the repository root (or `java -cp <classpath>"
                        + " dev.distlock.bench.jdbc.JdbcBenchmark benchmarks/results/jdbc.md`).",
                results);
    }

    private static String run(Database database, List<Result> results) throws Exception {
        String table = "distlock_bench_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        List<HikariDataSource> pools = new ArrayList<>();
        List<JdbcLockRegistry> registries = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                HikariDataSource pool = pool(database, "bench-" + i);
                pools.add(pool);
                registries.add(JdbcLockRegistry.builder(pool)
                        .tableName(table)
                        .initializeSchema(i == 0)
                        .build());
            }
            String version;
            try (Connection connection = pools.get(0).getConnection()) {
                version = connection.getMetaData().getDatabaseProductName() + " "
                        + connection.getMetaData().getDatabaseProductVersion();
            }
            String library = "distlock jdbc, " + database.name;

            FencedLock single = registries.get(0).obtain("bench-uncontended");
            results.add(Benchmark.uncontended(library, WARMUP, MEASURE, () -> {
                try (LockHandle handle = single.acquire()) {
                    // empty critical section
                }
            }));

            FencedLock shared = registries.get(0).obtain("bench-one-registry");
            Result local = Benchmark.contended(library, 4, WARMUP, MEASURE, () -> {
                try (LockHandle handle = shared.acquire()) {
                    // empty critical section
                }
            });
            results.add(new Result(
                    library,
                    "4 threads, one registry, one key: handoffs",
                    local.operations(),
                    local.opsPerSecond(),
                    Double.NaN,
                    Double.NaN));

            AtomicInteger next = new AtomicInteger();
            ThreadLocal<FencedLock> perThread = ThreadLocal.withInitial(() ->
                    registries.get(next.getAndIncrement() % registries.size()).obtain("bench-four-registries"));
            Result polled = Benchmark.contended(library, 4, WARMUP, MEASURE, () -> {
                try (LockHandle handle = perThread.get().acquire()) {
                    // empty critical section
                }
            });
            results.add(new Result(
                    library,
                    "4 threads, 4 registries (own pools), one key: acquire+release, polling waiters",
                    polled.operations(),
                    polled.opsPerSecond(),
                    Double.NaN,
                    Double.NaN));
            return version;
        } finally {
            registries.forEach(JdbcLockRegistry::close);
            if (!pools.isEmpty()) {
                drop(pools.get(0), table);
            }
            pools.forEach(HikariDataSource::close);
        }
    }

    private static HikariDataSource pool(Database database, String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(database.url);
        config.setUsername(database.user);
        config.setPassword(database.password);
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    private static void drop(HikariDataSource pool, String table) throws SQLException {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
