package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A database that stops answering fails a waiter within its wait time plus a small slack, never hangs it. */
class StalledDatabaseIT {

    private static final Duration WAIT = Duration.ofSeconds(2);

    /** The documented overrun of a wait (contract item 8: about 250 ms at most). */
    private static final Duration SLACK = Duration.ofMillis(250);

    /** Thread scheduling on a shared test machine. */
    private static final Duration NOISE = Duration.ofMillis(250);

    /**
     * PostgreSQL's driver cancels a statement at its query timeout over a second connection, and
     * the statement waits for that cancel request, which a silent database never answers, for up
     * to cancelSignalTimeout (10 s by default); a low one is the documented setting.
     */
    private static String cancelSignalTimeout(TestDatabase database) {
        return database == TestDatabase.POSTGRESQL ? "cancelSignalTimeout=1" : null;
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void waiterFailsWithTheKeyAndAddressSoonAfterItsWaitTimeWhenTheDatabaseGoesSilent(TestDatabase database)
            throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("stalled");
        String key = "stalled-" + System.nanoTime();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry holder = JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build();
                StallingProxy proxy = new StallingProxy(database.host(), database.port());
                HikariDataSource viaProxy =
                        database.poolThrough("distlock-via-proxy", proxy.port(), cancelSignalTimeout(database));
                JdbcLockRegistry waiter =
                        JdbcLockRegistry.builder(viaProxy).tableName(table).build();
                LockHandle held = holder.obtain(key).acquire()) {
            long start = System.nanoTime();
            Future<Optional<LockHandle>> waiting =
                    waiterThread.submit(() -> waiter.obtain(key).tryAcquire(WAIT));
            Thread.sleep(300); // the waiter polls, borrowing connections that were in use moments ago
            proxy.stall();

            Throwable failure = null;
            try {
                waiting.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(failure)
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining(database.hostPart());
            assertThat(took).isLessThan(WAIT.plus(SLACK).plus(NOISE));
            assertThat(held.isValid()).isTrue();
            proxy.close(); // the pool's new connections fail fast instead of waiting on silence at shut-down
        } finally {
            waiterThread.shutdownNow();
            try (HikariDataSource cleanup = database.pool("distlock-cleanup", 1)) {
                database.dropTable(cleanup, table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void zeroWaitAttemptEndsWithinTheSlackWhenTheDatabaseIsSilent(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("silent");
        String key = "silent-" + System.nanoTime();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry holder = JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build();
                StallingProxy proxy = new StallingProxy(database.host(), database.port());
                HikariDataSource viaProxy =
                        database.poolThrough("distlock-via-proxy", proxy.port(), cancelSignalTimeout(database));
                JdbcLockRegistry waiter =
                        JdbcLockRegistry.builder(viaProxy).tableName(table).build();
                LockHandle held = holder.obtain(key).acquire()) {
            // A connection used moments ago is lent without the pool's own validation round trip.
            assertThat(waiter.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
            proxy.stall();

            long start = System.nanoTime();
            try {
                assertThat(waiter.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
            } catch (LockBackendException expected) {
                assertThat(expected).hasMessageContaining(key).hasMessageContaining(database.hostPart());
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SLACK.plus(NOISE));
            assertThat(held.isValid()).isTrue();
            proxy.close();
        } finally {
            try (HikariDataSource cleanup = database.pool("distlock-cleanup", 1)) {
                database.dropTable(cleanup, table);
            }
        }
    }
}
