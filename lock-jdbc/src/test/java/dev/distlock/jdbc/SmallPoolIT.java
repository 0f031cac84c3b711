package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The registry shares the application's connection pool without starving it or being starved by
 * it: it keeps none of the pool's connections, and a call waits for a connection no longer than
 * its own wait time (contract 8), however long the pool would let it wait.
 */
class SmallPoolIT {

    /** Longer than any wait in these tests, so that only the registry's own bound ends them in time. */
    private static final Duration POOL_TIMEOUT = Duration.ofSeconds(10);

    /** The documented overrun of a wait (contract 8). */
    private static final Duration SLACK = Duration.ofMillis(250);

    /**
     * Thread scheduling on a shared test machine: the margin of a {@link TimingBound}, an overrun while this JVM
     * stalled longer than that is measured again.
     */
    private static final Duration NOISE = Duration.ofMillis(250);

    private final ExecutorService calls = Executors.newCachedThreadPool();

    /** How long {@code call} took, its result or failure kept in {@code outcome}. */
    private <T> Duration timed(Callable<T> call, List<Object> outcome) throws Exception {
        long start = System.nanoTime();
        Future<T> future = calls.submit(call);
        try {
            outcome.add(future.get(POOL_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            outcome.add(e.getCause());
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void registryOverAPoolOfOneWaitsForAHeldKeyNoLongerThanItsWaitTimeAndLocksOnceItIsFree() throws Exception {
        TestDatabase database = TestDatabase.POSTGRESQL;
        database.require();
        String table = TestDatabase.uniqueTableName("poolofone");
        String key = "pool-of-one-" + System.nanoTime();
        try (HikariDataSource other = database.pool("distlock-holder", 2);
                JdbcLockRegistry holder = TestDatabase.created(JdbcLockRegistry.builder(other)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .initializeSchema(true)
                        .build());
                HikariDataSource one = database.pool("distlock-pool-of-one", 1, null, true, POOL_TIMEOUT);
                JdbcLockRegistry waiter = JdbcLockRegistry.builder(one)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .build()) {
            try {
                AtomicReference<LockHandle> lastHeld = new AtomicReference<>();
                AtomicReference<String> lastKey = new AtomicReference<>();
                TimingBound.of("SmallPoolIT.registryOverAPoolOfOneWaitsNoLongerThanItsWaitTime", NOISE)
                        .check(() -> {
                            if (lastHeld.get() != null) {
                                lastHeld.get().close(); // a repeat waits for a key of its own
                            }
                            String measured = key + "-" + System.nanoTime();
                            lastKey.set(measured);
                            lastHeld.set(holder.obtain(measured).acquire());
                            Duration wait = Duration.ofSeconds(2);
                            List<Object> outcome = new ArrayList<>();
                            Duration took = timed(() -> waiter.obtain(measured).tryAcquire(wait), outcome);
                            assertThat(outcome).hasSize(1);
                            if (!Optional.empty().equals(outcome.get(0))) {
                                // Contract 8: a database that answers the last try later than the call's bound (a
                                // loaded machine) ends the call with a failure naming that timeout; never a wait for
                                // the pool.
                                assertThat(outcome.get(0))
                                        .as(
                                                "the only outcomes: the wait ran out, or the database's answer came too late")
                                        .isInstanceOf(DatabaseUnavailableException.class);
                                assertThat((Throwable) outcome.get(0))
                                        .hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
                            }
                            return new Timed(took, wait.plus(SLACK).plus(NOISE));
                        });
                LockHandle held = lastHeld.get();
                String measured = lastKey.get();

                held.close();
                List<Object> outcome = new ArrayList<>();
                timed(() -> waiter.obtain(measured).tryAcquire(Duration.ofSeconds(5)), outcome);
                assertThat(outcome.get(0))
                        .as("the pool's only connection is free for lock calls once the key is free")
                        .isInstanceOfSatisfying(
                                Optional.class, handle -> assertThat(handle).isPresent());
                ((Optional<?>) outcome.get(0)).map(LockHandle.class::cast).ifPresent(LockHandle::close);
                try (Connection connection = one.getConnection()) {
                    assertThat(connection.isValid(5))
                            .as("the application still gets the pool's only connection")
                            .isTrue();
                }
            } finally {
                database.dropTable(other, table);
            }
        } finally {
            calls.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void callEndsWithinItsWaitTimeWhenTheApplicationHoldsEveryConnectionOfThePool(TestDatabase database)
            throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("exhausted");
        String key = "exhausted-" + System.nanoTime();
        try (HikariDataSource pool = database.pool("distlock-exhausted", 2, null, true, POOL_TIMEOUT);
                JdbcLockRegistry registry = TestDatabase.created(JdbcLockRegistry.builder(pool)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .initializeSchema(true)
                        .build())) {
            try {
                List<Connection> taken = new ArrayList<>();
                try {
                    for (int i = 0; i < 2; i++) {
                        taken.add(pool.getConnection()); // the application's own work
                    }
                    for (Duration wait : List.of(Duration.ZERO, Duration.ofSeconds(1))) {
                        TimingBound.of(
                                        "SmallPoolIT.callEndsWithinItsWaitTimeWhenThePoolIsExhausted[" + database
                                                + ", wait " + wait + "]",
                                        NOISE)
                                .check(() -> {
                                    String measured = key + "-" + System.nanoTime();
                                    List<Object> outcome = new ArrayList<>();
                                    Duration took = timed(
                                            () -> registry.obtain(measured).tryAcquire(wait), outcome);
                                    assertThat(outcome.get(0))
                                            .isInstanceOfSatisfying(
                                                    LockBackendException.class,
                                                    e -> assertThat(e)
                                                            .hasMessageContaining(measured)
                                                            .hasMessageContaining(database.hostPart())
                                                            .hasMessageContaining("no connection"));
                                    return new Timed(took, wait.plus(SLACK).plus(NOISE));
                                });
                    }
                } finally {
                    for (Connection connection : taken) {
                        connection.close();
                    }
                }
                try (LockHandle handle = registry.obtain(key).acquire()) {
                    assertThat(handle.isValid())
                            .as("locks again once the pool has connections")
                            .isTrue();
                }
            } finally {
                database.dropTable(pool, table);
            }
        } finally {
            calls.shutdownNow();
        }
    }

    /**
     * Threads queued on the key's local gate of one registry (started one after another) reach the
     * database with little of their wait left; against a database that stopped answering, waiting for a connection must not add
     * the pool's own timeout to their wait.
     */
    @Test
    void threadsQueuedOnAKeyEndNearTheirWaitTimeWhenTheDatabaseGoesSilent() throws Exception {
        TestDatabase database = TestDatabase.POSTGRESQL;
        database.require();
        String table = TestDatabase.uniqueTableName("silentpool");
        String key = "silent-pool-" + System.nanoTime();
        Duration wait = Duration.ofSeconds(1);
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry holder = TestDatabase.created(JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .initializeSchema(true)
                        .build())) {
            try {
                // Each measurement silences a proxy, pool and registry of its own, waiting for a key of its own.
                TimingBound.of("SmallPoolIT.threadsQueuedOnAKeyEndNearTheirWaitTime", NOISE)
                        .check(() -> {
                            String measured = key + "-" + System.nanoTime();
                            try (FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                                    HikariDataSource viaProxy = database.poolThrough(
                                            "distlock-silent-pool", proxy.port(), "cancelSignalTimeout=1");
                                    JdbcLockRegistry waiter = JdbcLockRegistry.builder(viaProxy)
                                            .tableName(table)
                                            .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                                            .build();
                                    LockHandle held = holder.obtain(measured).acquire()) {
                                try {
                                    return waitersOnASilentDatabase(waiter, proxy, measured, wait, held);
                                } finally {
                                    proxy.close();
                                }
                            }
                        });
            } finally {
                database.dropTable(direct, table);
            }
        } finally {
            calls.shutdownNow();
        }
    }

    /** Eight threads queue on {@code key} one after another once the database fell silent: the longest call. */
    private Timed waitersOnASilentDatabase(
            JdbcLockRegistry waiter, FaultProxy proxy, String key, Duration wait, LockHandle held) throws Exception {
        assertThat(waiter.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
        proxy.stall();
        List<Future<Duration>> waiters = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread.sleep(150);
            waiters.add(calls.submit(() -> {
                long start = System.nanoTime();
                try {
                    waiter.obtain(key).tryAcquire(wait);
                } catch (LockBackendException expected) {
                    // the database did not answer: a clear failure is what the contract asks
                }
                return Duration.ofNanos(System.nanoTime() - start);
            }));
        }
        Duration longest = Duration.ZERO;
        for (Future<Duration> took : waiters) {
            Duration one = took.get(POOL_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
            longest = one.compareTo(longest) > 0 ? one : longest;
        }
        assertThat(held.isValid()).isTrue();
        return new Timed(longest, wait.plus(SLACK).plus(NOISE));
    }
}
