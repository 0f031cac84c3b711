package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.testing.ServerStateKeys;
import dev.distlock.core.testing.ServerStateKeys.SemaphoreChurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What a lock leaves in the table once it is released: locking many distinct keys, or acquiring
 * permits of many distinct semaphores, must not grow it.
 */
class ServerStateIT {

    private static final int THREADS = 4;

    /** The table holds no more than this many rows after the keys were released. */
    private static final int ROWS_LEFT_AT_MOST = 8;

    private static int distinctKeys() {
        return ServerStateKeys.count(25_000);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void distinctKeysLockedAndReleasedOnceLeaveNoRowsBehind(TestDatabase database) throws Exception {
        int keys = distinctKeys();
        onFreshTable(database, THREADS, THREADS + 1, (pool, table, registries) -> {
            String before = rows(pool, table) + " rows, " + ServerStateKeys.bytes(bytes(database, pool, table));
            long start = System.nanoTime();
            ExecutorService threads = Executors.newFixedThreadPool(THREADS);
            int acquired = 0;
            try {
                List<Future<Integer>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    LockRegistry registry = registries.get(t);
                    int first = t;
                    workers.add(threads.submit(() -> {
                        int granted = 0;
                        for (int i = first; i < keys; i += THREADS) {
                            Optional<LockHandle> handle =
                                    registry.obtain("order-" + i).tryAcquire(Duration.ofSeconds(5));
                            if (handle.isPresent()) {
                                granted++;
                                handle.get().close();
                            }
                        }
                        return granted;
                    }));
                }
                for (Future<Integer> worker : workers) {
                    acquired += worker.get(Math.max(10, keys / 50_000), TimeUnit.MINUTES);
                }
            } finally {
                threads.shutdownNow();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(acquired).isEqualTo(keys);
            long rows = rowsLeft(pool, table);
            ServerStateKeys.report(
                    "JDBC " + database.server,
                    keys,
                    took,
                    before,
                    rows + " rows, " + ServerStateKeys.bytes(bytes(database, pool, table))
                            + afterVacuum(database, pool, table));
            assertThat(rows).isLessThanOrEqualTo(ROWS_LEFT_AT_MOST);

            try (LockHandle again = registries.get(0).obtain("order-1").acquire()) {
                assertThat(registries.get(1).obtain("order-1").tryAcquire(Duration.ZERO))
                        .as("the lock still works")
                        .isEmpty();
                assertThat(again.isValid()).isTrue();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void distinctSemaphoresAcquiredAndReleasedOnceLeaveNoRowsBehind(TestDatabase database) throws Exception {
        int names = ServerStateKeys.semaphores(database == TestDatabase.H2 ? 8_000 : 4_000);
        // Two registries; each thread may run two acquisitions at once, each trying both slots at once.
        onFreshTable(database, 2, THREADS * 4 + 1, (pool, table, registries) -> {
            String before = rows(pool, table) + " rows, " + ServerStateKeys.bytes(bytes(database, pool, table));
            SemaphoreChurn churn = ServerStateKeys.churnSemaphores(registries, THREADS, names, "export-");
            long rows = rowsLeft(pool, table);
            ServerStateKeys.reportSemaphores(
                    "JDBC " + database.server,
                    churn,
                    before,
                    rows + " rows, " + ServerStateKeys.bytes(bytes(database, pool, table))
                            + afterVacuum(database, pool, table));
            assertThat(rows)
                    .as("rows left after %d semaphores were acquired and released", churn.names())
                    .isLessThanOrEqualTo(ROWS_LEFT_AT_MOST);
            ServerStateKeys.assertSemaphoreStillWorks(registries, "export-0");
        });
    }

    /** What a test does with a fresh lock table and registries over it. */
    private interface TableTest {
        void run(DataSource pool, String table, List<LockRegistry> registries) throws Exception;
    }

    /**
     * Runs {@code test} on a new lock table of {@code database} with {@code registryCount}
     * registries over one pool of {@code poolSize} connections, durability relaxed as described at
     * {@link #relaxLogFlush}; closes the registries and drops the table afterwards.
     */
    private static void onFreshTable(TestDatabase database, int registryCount, int poolSize, TableTest test)
            throws Exception {
        // For a long run on one database: -Ddistlock.server-state.database=MARIADB (the other databases are skipped).
        String only = System.getProperty("distlock.server-state.database", "");
        Assumptions.assumeTrue(
                only.isBlank() || only.equalsIgnoreCase(database.name()),
                () -> "only " + only + " was asked for by -Ddistlock.server-state.database");
        database.require();
        String table = TestDatabase.uniqueTableName("state");
        try (HikariDataSource pool = database.pool("distlock-state", poolSize)) {
            String flushSetting = database == TestDatabase.MARIADB ? relaxLogFlush(pool) : null;
            List<LockRegistry> registries = new ArrayList<>();
            try {
                for (int r = 0; r < registryCount; r++) {
                    registries.add(JdbcLockRegistry.builder(pool)
                            .tableName(table)
                            .initializeSchema(true)
                            .build());
                }
                // The first lock creates the table; durability is then relaxed as described at relaxLogFlush.
                registries.get(0).obtain("warm-up").acquire().close();
                if (database == TestDatabase.POSTGRESQL) {
                    new JdbcTemplate(pool).execute("ALTER TABLE " + table + " SET UNLOGGED");
                }
                test.run(pool, table, registries);
            } finally {
                registries.forEach(LockRegistry::close);
                if (flushSetting != null) {
                    new JdbcTemplate(pool).execute("SET GLOBAL innodb_flush_log_at_trx_commit = " + flushSetting);
                }
                database.dropTable(pool, table);
            }
        }
    }

    /**
     * PostgreSQL keeps deleted rows until (auto)vacuum, which frees their space for new rows and
     * gives empty pages at the end of the table back: the size after a plain {@code VACUUM}.
     */
    private static String afterVacuum(TestDatabase database, DataSource pool, String table) {
        if (database != TestDatabase.POSTGRESQL) {
            return "";
        }
        new JdbcTemplate(pool).execute("VACUUM " + table);
        return " (" + ServerStateKeys.bytes(bytes(database, pool, table)) + " after VACUUM)";
    }

    /**
     * Durability on disk is not what this test is about (as the ZooKeeper server-state test runs
     * its server without forced syncs): with the default flush of the log at every commit, MariaDB
     * takes minutes for tens of thousands of keys. Flushes once a second instead and returns the setting to
     * restore. (PostgreSQL gets the same by making the test's table unlogged: a commit that wrote
     * only to unlogged tables does not wait for the log flush.)
     */
    private static String relaxLogFlush(DataSource pool) {
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        String setting = jdbc.queryForObject("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit", String.class);
        jdbc.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 2");
        return setting;
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tokensRiseAcrossReleaseExpiryAndTheSweepThatRemovesRows(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("tokens");
        String key = "order-" + System.nanoTime();
        Duration shortLease = Duration.ofMillis(200);
        try (HikariDataSource pool = database.pool("distlock-tokens", 3)) {
            try (JdbcLockRegistry first = JdbcLockRegistry.builder(pool)
                            .tableName(table)
                            .initializeSchema(true)
                            .sweepInterval(Duration.ofMillis(100))
                            .build();
                    JdbcLockRegistry second =
                            JdbcLockRegistry.builder(pool).tableName(table).build()) {
                List<Long> tokens = new ArrayList<>();

                // Release deletes the row.
                try (LockHandle handle = first.obtain(key).acquire()) {
                    tokens.add(handle.token().value());
                }
                assertThat(rows(pool, table)).as("the release deleted the row").isZero();
                try (LockHandle handle = second.obtain(key).acquire()) {
                    tokens.add(handle.token().value());
                }

                // A lease that ends unreleased: the next owner takes the expired row.
                LockHandle abandoned =
                        first.obtain(key).tryAcquire(Duration.ZERO, shortLease).orElseThrow();
                tokens.add(abandoned.token().value());
                LockHandle next = second.obtain(key)
                        .tryAcquire(Duration.ofSeconds(5), shortLease)
                        .orElseThrow();
                tokens.add(next.token().value());

                // Never released at all: the sweep deletes the expired row.
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (rows(pool, table) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(rows(pool, table))
                        .as("the sweep deleted the expired row")
                        .isZero();
                try (LockHandle handle = second.obtain(key).acquire()) {
                    tokens.add(handle.token().value());
                }
                abandoned.close();
                next.close();

                assertThat(tokens).as("tokens of %s", key).isSorted().doesNotHaveDuplicates();
            } finally {
                database.dropTable(pool, table);
            }
        }
    }

    /**
     * The rows left once what failed acquisitions may hold is freed: a take whose answer was lost (a slow answer on a
     * loaded machine, contract 8) is freed in the background, looked for again within seconds when it commits late
     * (see Withdrawals); the count is read again for up to ten seconds while it is above {@link #ROWS_LEFT_AT_MOST}.
     */
    private static long rowsLeft(DataSource dataSource, String table) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long rows = rows(dataSource, table);
        while (rows > ROWS_LEFT_AT_MOST && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(250);
            rows = rows(dataSource, table);
        }
        return rows;
    }

    static long rows(DataSource dataSource, String table) {
        Long rows = new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM " + table, Long.class);
        return rows == null ? 0 : rows;
    }

    /** The table's size on disk as the database reports it (PostgreSQL counts dead rows until vacuumed). */
    static long bytes(TestDatabase database, DataSource dataSource, String table) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Long bytes = switch (database) {
            case POSTGRESQL -> jdbc.queryForObject("SELECT pg_total_relation_size(?::regclass)", Long.class, table);
            case MARIADB -> {
                jdbc.execute("ANALYZE TABLE " + table);
                yield jdbc.queryForObject(
                        "SELECT data_length + index_length FROM information_schema.tables"
                                + " WHERE table_schema = DATABASE() AND table_name = ?",
                        Long.class,
                        table);
            }
            case H2 -> jdbc.queryForObject("SELECT DISK_SPACE_USED(?)", Long.class, table.toUpperCase());
        };
        return bytes == null ? -1 : bytes;
    }
}
