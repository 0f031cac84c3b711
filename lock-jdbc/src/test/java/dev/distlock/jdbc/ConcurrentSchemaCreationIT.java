package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Instances deployed together, each creating the tables on first use ({@code initializeSchema}),
 * all succeed: creating a table at the same moment as another instance is not a failure.
 */
class ConcurrentSchemaCreationIT {

    private static final int INSTANCES = 6;

    /** Fresh tables per round: one round does not always catch a race. */
    private static final int ROUNDS = 5;

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void instancesCreatingTheLockTableAtOnceAllStart(TestDatabase database) throws Exception {
        firstCallsAtOnceAllSucceed(database, "race", (registry, key) -> registry.obtain(key), false);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void instancesVerifyingAtOnceAllStart(TestDatabase database) throws Exception {
        firstCallsAtOnceAllSucceed(database, "racev", (registry, key) -> registry.obtain(key), true);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void instancesCreatingTheReadWriteTableAtOnceAllLock(TestDatabase database) throws Exception {
        firstCallsAtOnceAllSucceed(
                database,
                "racerw",
                (registry, key) -> registry.readWriteLock(key).readLock(),
                false);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tableThatCannotBeCreatedFailsNamingTheTableAndTheDdl(TestDatabase database) throws Exception {
        database.require();
        String table = "distlock_no_such_schema_" + System.nanoTime() + ".locks";
        try (HikariDataSource pool = database.pool("distlock-no-schema", 2);
                JdbcLockRegistry registry = JdbcLockRegistry.builder(pool)
                        .tableName(table)
                        .initializeSchema(true)
                        .build()) {
            assertThatThrownBy(() -> registry.verify(Duration.ofSeconds(10)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("jdbc backend")
                    .hasMessageContaining(database.hostPart())
                    .hasMessageContaining("could not create the lock table '" + table + "'")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + " (");
            assertThatThrownBy(() -> registry.readWriteLock("k").readLock().tryAcquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("jdbc backend")
                    .hasMessageContaining(database.hostPart())
                    .hasMessageContaining("'k'")
                    .hasMessageContaining("could not create the read/write lock table '" + table + "_rw'")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + "_rw (");
        }
    }

    /**
     * Per round: {@link #INSTANCES} registries on pools of their own, on a table nobody created, make
     * their first call at the same moment ({@code verify}, or a short acquisition of their own key).
     */
    private static void firstCallsAtOnceAllSucceed(
            TestDatabase database,
            String purpose,
            BiFunction<JdbcLockRegistry, String, FencedLock> lock,
            boolean verifyFirst)
            throws Exception {
        database.require();
        ExecutorService instances = Executors.newFixedThreadPool(INSTANCES);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String table = TestDatabase.uniqueTableName(purpose);
                List<HikariDataSource> pools = new ArrayList<>();
                List<JdbcLockRegistry> registries = new ArrayList<>();
                try {
                    for (int i = 0; i < INSTANCES; i++) {
                        HikariDataSource pool = database.pool("distlock-instance-" + i, 2);
                        pools.add(pool);
                        try (var warm = pool.getConnection()) {
                            // connected before the barrier, so the first calls meet at the table
                        }
                        registries.add(JdbcLockRegistry.builder(pool)
                                .tableName(table)
                                .initializeSchema(true)
                                .build());
                    }
                    CyclicBarrier start = new CyclicBarrier(INSTANCES);
                    List<Future<Boolean>> calls = new ArrayList<>();
                    for (int i = 0; i < INSTANCES; i++) {
                        JdbcLockRegistry registry = registries.get(i);
                        String key = "instance-" + i;
                        calls.add(instances.submit(() -> {
                            start.await(30, TimeUnit.SECONDS);
                            if (verifyFirst) {
                                registry.verify(Duration.ofSeconds(20));
                            }
                            Optional<LockHandle> handle =
                                    lock.apply(registry, key).tryAcquire(Duration.ofSeconds(20));
                            handle.ifPresent(LockHandle::close);
                            return handle.isPresent();
                        }));
                    }
                    for (int i = 0; i < INSTANCES; i++) {
                        assertThat(calls.get(i).get(60, TimeUnit.SECONDS))
                                .as("round %d, instance %d locked its own key on the new table %s", round, i, table)
                                .isTrue();
                    }
                } finally {
                    registries.forEach(JdbcLockRegistry::close);
                    if (!pools.isEmpty()) {
                        database.dropTable(pools.get(0), table + "_rw");
                        database.dropTable(pools.get(0), table);
                    }
                    pools.forEach(HikariDataSource::close);
                }
            }
        } finally {
            instances.shutdownNow();
        }
    }
}
