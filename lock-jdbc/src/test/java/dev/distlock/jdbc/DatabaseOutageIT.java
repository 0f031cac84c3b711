package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A waiting call rides out a database that is unavailable for a while (a restart: every
 * connection cut, new ones refused, then accepted again), retrying with back-off while its wait
 * lasts; it fails with the last error when the wait runs out, and at once for a zero wait. The
 * restart is simulated by a loopback proxy in front of the shared database.
 */
class DatabaseOutageIT {

    /** The documented overrun of a wait (contract 8). */
    private static final Duration SLACK = Duration.ofMillis(250);

    /**
     * Thread scheduling on a shared test machine: the margin of a {@link TimingBound}, an overrun while this JVM
     * stalled longer than that is measured again.
     */
    private static final Duration NOISE = Duration.ofMillis(250);

    /** A key held through a direct pool, and a registry that waits for it through a proxy that can cut it off. */
    private record Outage(JdbcLockRegistry holder, JdbcLockRegistry waiter, FaultProxy proxy, String key) {}

    @FunctionalInterface
    private interface Scenario {
        void run(Outage outage) throws Exception;
    }

    /** A measured scenario: what the call returned is asserted inside, its time bound is returned. */
    @FunctionalInterface
    private interface TimedScenario {
        Timed run(Outage outage) throws Exception;
    }

    /** Runs {@code scenario} on a fresh table, proxy and key per measurement, through a {@link TimingBound}. */
    private static void checkTimed(String test, TestDatabase database, TimedScenario scenario) throws Exception {
        TimingBound.of("DatabaseOutageIT." + test + "[" + database + "]", NOISE).check(() -> {
            AtomicReference<Timed> timed = new AtomicReference<>();
            withOutage(database, outage -> timed.set(scenario.run(outage)));
            return timed.get();
        });
    }

    private static void withOutage(TestDatabase database, Scenario scenario) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("outage");
        String key = "outage-" + System.nanoTime();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry holder = TestDatabase.created(JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build());
                FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                HikariDataSource viaProxy = database.poolThrough("distlock-via-proxy", proxy.port(), null);
                JdbcLockRegistry waiter = TestDatabase.created(
                        JdbcLockRegistry.builder(viaProxy).tableName(table).build())) {
            try {
                scenario.run(new Outage(holder, waiter, proxy, key));
            } finally {
                proxy.restore();
                database.dropTable(direct, table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void waiterRidesOutADatabaseRestartAndGetsTheKeyWhenItIsReleased(TestDatabase database) throws Exception {
        withOutage(database, outage -> {
            ExecutorService waiterThread = Executors.newSingleThreadExecutor();
            try {
                LockHandle held = outage.holder().obtain(outage.key()).acquire();
                Future<Optional<LockHandle>> waiting = waiterThread.submit(
                        () -> outage.waiter().obtain(outage.key()).tryAcquire(Duration.ofSeconds(60)));
                Thread.sleep(500); // the waiter polls
                outage.proxy().refuse(); // the restart: connections cut, new ones refused
                Thread.sleep(1500);
                assertThat(waiting.isDone())
                        .as("the waiter still waits during the outage")
                        .isFalse();
                outage.proxy().restore();
                Thread.sleep(500);
                held.close();

                Optional<LockHandle> handle = waiting.get(60, TimeUnit.SECONDS);
                assertThat(handle)
                        .as("the waiter got the key after the restart")
                        .isPresent();
                try (LockHandle next = handle.get()) {
                    assertThat(next.isValid()).isTrue();
                    assertThat(next.token().isNewerThan(held.token())).isTrue();
                }
            } finally {
                waiterThread.shutdownNow();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void waitThatEndsDuringAnOutageFailsWithTheLastErrorWhenItEnds(TestDatabase database) throws Exception {
        checkTimed("waitThatEndsDuringAnOutageFailsWithTheLastErrorWhenItEnds", database, outage -> {
            Duration wait = Duration.ofSeconds(2);
            try (LockHandle held = outage.holder().obtain(outage.key()).acquire()) {
                outage.proxy().refuse();
                long start = System.nanoTime();
                assertThatThrownBy(() -> outage.waiter().obtain(outage.key()).tryAcquire(wait))
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(outage.key())
                        .hasMessageContaining("127.0.0.1:" + outage.proxy().port());
                Timed timed = Timed.since(start, wait.plus(SLACK).plus(NOISE));
                assertThat(timed.took())
                        .as("the call retried for its whole wait")
                        .isGreaterThanOrEqualTo(wait);
                assertThat(held.isValid()).isTrue();
                return timed;
            }
        });
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void zeroWaitDuringAnOutageFailsAtOnce(TestDatabase database) throws Exception {
        checkTimed("zeroWaitDuringAnOutageFailsAtOnce", database, outage -> {
            outage.proxy().refuse();
            long start = System.nanoTime();
            assertThatThrownBy(() -> outage.waiter().obtain(outage.key()).tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(outage.key());
            return Timed.since(start, SLACK.plus(NOISE));
        });
    }

    /**
     * The database took the key for the waiter but the answer was lost with the connection; the
     * waiter's retry finds the row by its owner instead of waiting behind itself.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void takeWhoseAnswerWasLostEndsHoldingTheKey(TestDatabase database) throws Exception {
        withOutage(database, outage -> {
            outage.holder().obtain(outage.key()).acquire().close(); // the row exists

            outage.proxy().dropReplyToMessageContaining(outage.key().getBytes(StandardCharsets.UTF_8));
            Optional<LockHandle> handle;
            try {
                handle = outage.waiter().obtain(outage.key()).tryAcquire(Duration.ofSeconds(10), Duration.ofMinutes(2));
            } catch (LockBackendException e) {
                throw new AssertionError("the lost answer was not ridden out", e);
            }
            assertThat(handle)
                    .as("the retry found the row its lost take had written")
                    .isPresent();
            try (LockHandle held = handle.get()) {
                assertThat(held.isValid()).isTrue();
                assertThat(outage.holder().obtain(outage.key()).tryAcquire(Duration.ZERO))
                        .as("the key is held by the waiter")
                        .isEmpty();
            }
            Optional<LockHandle> next = outage.holder().obtain(outage.key()).tryAcquire(Duration.ofSeconds(5));
            assertThat(next).as("the waiter's release freed it").isPresent();
            next.get().close();
        });
    }
}
