package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An acquisition whose statement the database committed but whose answer never arrived (the
 * network failed in between), or whose statement reached the database only after the caller gave
 * up on it, must not leave the key taken by the failed attempt: the backend frees what the attempt
 * may have taken, also when that commits after the caller gave up.
 */
class LostAcquireReplyIT {

    private static final Duration LONG_LEASE = Duration.ofMinutes(2);

    /** How long a take is held back on its way to the database: past a zero wait's give-up (250 ms). */
    private static final Duration DELAY = Duration.ofMillis(800);

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void zeroWaitTakeThatCommitsAfterItsCallerGaveUpIsFreedToo(TestDatabase database) throws Exception {
        onTwoRegistries(database, "latetake", (other, proxy, unlucky, key) -> {
            // The take reaches the database after the caller's zero wait gave up on it and freed what it may
            // have taken: that free finds nothing, and the take commits after it.
            proxy.delayMessageContaining(key.getBytes(StandardCharsets.UTF_8), DELAY);
            try {
                Optional<LockHandle> attempt = unlucky.obtain(key).tryAcquire(Duration.ZERO, LONG_LEASE);
                attempt.ifPresent(LockHandle::close); // a machine slow enough to wait it out holds it properly
            } catch (LockBackendException expected) {
                assertThat(expected).hasMessageContaining(key);
            }
            Thread.sleep(DELAY.toMillis() + 500); // the late take has landed; asked earlier, the key would be free

            Optional<LockHandle> next = other.obtain(key).tryAcquire(Duration.ofSeconds(5));
            assertThat(next)
                    .as("the key is free again, not held by the late take for its %s lease", LONG_LEASE)
                    .isPresent();
            next.get().close();
        });
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void acquisitionWhoseAnswerWasLostAfterTheCommitLeavesTheKeyFree(TestDatabase database) throws Exception {
        onTwoRegistries(database, "lostreply", (other, proxy, unlucky, key) -> {
            proxy.dropReplyToMessageContaining(key.getBytes(StandardCharsets.UTF_8));
            Optional<LockHandle> attempt = Optional.empty();
            try {
                attempt = unlucky.obtain(key).tryAcquire(Duration.ofSeconds(2), LONG_LEASE);
            } catch (LockBackendException expected) {
                assertThat(expected).hasMessageContaining(key);
            }
            if (attempt.isPresent()) {
                // The backend may have retried after cleaning up; then it holds the key properly.
                assertThat(other.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                attempt.get().close();
            }

            Optional<LockHandle> next = other.obtain(key).tryAcquire(Duration.ofSeconds(2));
            assertThat(next)
                    .as("the key is free again, not held by the failed attempt for its %s lease", LONG_LEASE)
                    .isPresent();
            next.get().close();
        });
    }

    /** What a test does with a registry reaching the database directly and one reaching it through a proxy. */
    private interface Scenario {
        void run(JdbcLockRegistry other, FaultProxy proxy, JdbcLockRegistry unlucky, String key) throws Exception;
    }

    /** Runs {@code scenario} on a new table, with a key both registries have set up; drops the table afterwards. */
    private static void onTwoRegistries(TestDatabase database, String name, Scenario scenario) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName(name);
        String key = name + "-" + System.nanoTime();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry other = JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build();
                FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                HikariDataSource viaProxy = database.poolThrough("distlock-via-proxy", proxy.port(), null);
                JdbcLockRegistry unlucky =
                        JdbcLockRegistry.builder(viaProxy).tableName(table).build()) {
            other.obtain(key).acquire().close(); // the table exists and the key has been used before
            unlucky.obtain("warm-up").acquire().close(); // the proxied registry's table setup is done
            scenario.run(other, proxy, unlucky, key);
        } finally {
            try (HikariDataSource cleanup = database.pool("distlock-cleanup", 1)) {
                database.dropTable(cleanup, table);
            }
        }
    }
}
