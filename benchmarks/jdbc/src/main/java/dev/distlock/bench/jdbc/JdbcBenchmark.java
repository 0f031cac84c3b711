package dev.distlock.bench.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.bench.Benchmark;
import dev.distlock.bench.jdbc.Library.Contender;
import dev.distlock.bench.jdbc.Library.Held;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * distlock's jdbc backend beside Spring Integration's JdbcLockRegistry and ShedLock's JDBC
 * provider, on H2 (in-process), PostgreSQL and MariaDB (loopback), in interleaved rounds: each
 * round runs every library once, so drifting load on the shared machine hits all of them alike.
 * Two measurements: one thread acquiring and releasing one uncontended key, and the hand-over of
 * a key from a holder in one instance (own pool, standing for a JVM) to a waiter in another.
 */
public final class JdbcBenchmark {

    /**
     * Many short throughput rounds: one thread's rate on a database sharing the 2 cores drifts by
     * tens of percent over seconds, and slices that take turns every half second see nearly the
     * same machine.
     */
    private static final int THROUGHPUT_ROUNDS = 20;

    private static final Duration THROUGHPUT_SLICE = Duration.ofMillis(500);
    private static final int HANDOVER_ROUNDS = 5;
    private static final int HANDOVERS_PER_ROUND = 40;
    private static final Duration WARMUP = Duration.ofSeconds(2);

    private record Database(String name, String url, String user, String password) {}

    /** What one library measured on one database, summed over the rounds. */
    private static final class Figures {
        long operations;
        long nanos;
        final double[] roundRates = new double[THROUGHPUT_ROUNDS];
        final List<Long> handovers = new ArrayList<>();

        double opsPerSecond() {
            return operations / (nanos / 1e9);
        }

        double handoverMillis(double quantile) {
            List<Long> sorted = new ArrayList<>(handovers);
            Collections.sort(sorted);
            int index = (int) Math.ceil(quantile * sorted.size()) - 1;
            return sorted.get(Math.max(0, index)) / 1e6;
        }
    }

    private JdbcBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path output = Path.of(args.length > 0 ? args[0] : "benchmarks/results/jdbc.md");
        String load = loadAverage();
        List<Database> databases = List.of(
                new Database("H2", "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", ""),
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
        StringBuilder report = new StringBuilder();
        List<String> versions = new ArrayList<>();
        Instant started = Instant.now();
        for (Database database : databases) {
            String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            List<Library> libraries = List.of(
                    new Distlock("distlock_bench_" + suffix),
                    new SpringIntegration("SIB" + suffix + "_"),
                    new ShedLock("shedlock_bench_" + suffix));
            Map<Library, Figures> figures = new LinkedHashMap<>();
            versions.add(run(database, libraries, figures));
            report.append(table(database.name, figures));
        }
        String text = "# jdbc backend beside Spring Integration and ShedLock\n\n"
                + "Measured " + started + " on " + Runtime.getRuntime().availableProcessors() + " cores, Java "
                + System.getProperty("java.version") + "; load average at the start: " + load + " (the machine was"
                + " shared with other builds, so absolute numbers are noisy; compare within a table).\n\n"
                + "Databases: " + String.join("; ", versions) + ". H2 in-process; PostgreSQL and MariaDB on loopback"
                + " with default server settings. HikariCP pools of 4, one per library instance. Spring Integration"
                + " 7.1.0 (JdbcLockRegistry with its"
                + " defaults: TTL 10 s, waiters poll every 100 ms); ShedLock 6.9.2 (JdbcTemplateLockProvider, database"
                + " time; it cannot wait, so waiters retry every 10 ms); distlock with its defaults (watchdog lease"
                + " 30 s; PostgreSQL waiters woken by LISTEN/NOTIFY, others poll with back-off 2 ms doubling to"
                + " 25 ms).\n\n"
                + "Per database, after a " + WARMUP.toSeconds() + " s warm-up of each library: "
                + THROUGHPUT_ROUNDS + " interleaved rounds in which every library runs "
                + THROUGHPUT_SLICE.toMillis() + " ms of *1 thread* (acquire+release of one uncontended key), the"
                + " order rotating from round to round; then " + HANDOVER_ROUNDS + " interleaved rounds of "
                + HANDOVERS_PER_ROUND + " *hand-overs* per library: one instance holds the key for 20-60 ms while"
                + " another waits for it (tryLock with a 10 s wait); the time from the holder's release call to the"
                + " waiter's return with the lock is one sample. The roles alternate between the two instances."
                + " *distlock ÷ this* divides the rates over all rounds; *round median* is the median over the"
                + " rounds of the ratio within each round, which a burst of load during one slice moves less.\n\n"
                + "Run: `mvn -q -o install -pl lock-core,lock-jdbc -DskipTests && mvn -q -pl benchmarks/jdbc"
                + " compile org.codehaus.mojo:exec-maven-plugin:3.5.1:java` from the repository root.\n\n"
                + report;
        Files.createDirectories(output.toAbsolutePath().getParent());
        Files.writeString(output, text);
        System.out.println(text);
    }

    private static String run(Database database, List<Library> libraries, Map<Library, Figures> figures)
            throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        Map<Library, Contender[]> instances = new LinkedHashMap<>();
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        HikariDataSource admin = pool(database, "bench-admin");
        pools.add(admin);
        try {
            String product;
            String version;
            try (Connection connection = admin.getConnection()) {
                product = connection.getMetaData().getDatabaseProductName();
                version = product + " " + connection.getMetaData().getDatabaseProductVersion();
            }
            for (Library library : libraries) {
                library.createTable(admin, product);
                Contender[] pair = new Contender[2];
                for (int i = 0; i < 2; i++) {
                    HikariDataSource pool =
                            pool(database, "bench-" + library.name().split(" ")[0] + "-" + i);
                    pools.add(pool);
                    pair[i] = library.open(pool);
                }
                instances.put(library, pair);
                figures.put(library, new Figures());
                throughput(pair[0], "warm-up", WARMUP);
            }
            for (int round = 0; round < THROUGHPUT_ROUNDS; round++) {
                for (Library library : inTurn(libraries, round)) {
                    Figures f = figures.get(library);
                    long start = System.nanoTime();
                    long operations = throughput(instances.get(library)[0], "uncontended", THROUGHPUT_SLICE);
                    long nanos = System.nanoTime() - start;
                    f.operations += operations;
                    f.nanos += nanos;
                    f.roundRates[round] = operations / (nanos / 1e9);
                }
            }
            System.err.printf("%s: throughput done%n", database.name);
            for (int round = 0; round < HANDOVER_ROUNDS; round++) {
                for (Library library : inTurn(libraries, round)) {
                    handovers(instances.get(library), waiter, figures.get(library).handovers);
                }
                System.err.printf("%s: hand-over round %d of %d done%n", database.name, round + 1, HANDOVER_ROUNDS);
            }
            return version;
        } finally {
            waiter.shutdownNow();
            for (Map.Entry<Library, Contender[]> entry : instances.entrySet()) {
                for (Contender contender : entry.getValue()) {
                    contender.close();
                }
                entry.getKey().dropTable(admin);
            }
            pools.forEach(HikariDataSource::close);
        }
    }

    /** The libraries in the order of {@code round}: rotated by one each round, so each goes first in turn. */
    private static List<Library> inTurn(List<Library> libraries, int round) {
        List<Library> order = new ArrayList<>(libraries);
        Collections.rotate(order, round);
        return order;
    }

    /** Acquire+release of one key for {@code slice}; returns the number of cycles. */
    private static long throughput(Contender contender, String key, Duration slice) throws Exception {
        long end = System.nanoTime() + slice.toNanos();
        long operations = 0;
        while (System.nanoTime() - end < 0) {
            Held held = contender.tryAcquire(key, Duration.ofSeconds(10));
            if (held == null) {
                throw new IllegalStateException("uncontended acquisition timed out");
            }
            held.close();
            operations++;
        }
        return operations;
    }

    private static void handovers(Contender[] pair, ExecutorService waiterThread, List<Long> samples) throws Exception {
        for (int i = 0; i < HANDOVERS_PER_ROUND; i++) {
            Contender holder = pair[i % 2];
            Contender waiter = pair[(i + 1) % 2];
            Held held = holder.tryAcquire("handover", Duration.ofSeconds(10));
            if (held == null) {
                throw new IllegalStateException("the holder could not take the free key");
            }
            Future<Long> acquiredAt = waiterThread.submit(() -> {
                Held next = waiter.tryAcquire("handover", Duration.ofSeconds(10));
                long at = System.nanoTime();
                if (next == null) {
                    throw new IllegalStateException("the waiter did not get the released key");
                }
                next.close();
                return at;
            });
            Thread.sleep(ThreadLocalRandom.current().nextLong(20, 61));
            long releasedAt = System.nanoTime();
            held.close();
            samples.add(acquiredAt.get(20, TimeUnit.SECONDS) - releasedAt);
        }
    }

    private static String table(String database, Map<Library, Figures> figures) {
        Figures distlock = figures.values().iterator().next();
        StringBuilder out = new StringBuilder("## " + database + "\n\n");
        out.append("| library | 1 thread, ops/s | distlock ÷ this | distlock ÷ this, round median"
                + " | hand-over p50 ms | hand-over p99 ms |\n");
        out.append("|---|---:|---:|---:|---:|---:|\n");
        figures.forEach((library, f) -> out.append(String.format(
                Locale.ROOT,
                "| %s | %,.0f | %.2f× | %.2f× | %.1f | %.1f |%n",
                library.name(),
                f.opsPerSecond(),
                distlock.opsPerSecond() / f.opsPerSecond(),
                Benchmark.medianRatio(distlock.roundRates, f.roundRates),
                f.handoverMillis(0.50),
                f.handoverMillis(0.99))));
        out.append(String.format(
                Locale.ROOT,
                "%n%,d hand-overs per library; %,d distlock acquire+release cycles.%n%n",
                distlock.handovers.size(),
                distlock.operations));
        return out.toString();
    }

    private static HikariDataSource pool(Database database, String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(database.url);
        config.setUsername(database.user);
        config.setPassword(database.password);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
