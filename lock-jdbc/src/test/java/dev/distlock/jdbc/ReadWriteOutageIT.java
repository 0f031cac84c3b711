package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.OwnerId;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read and write waiters ride out a database that is unavailable for a while (every connection
 * cut, new ones refused, then accepted again) as plain locks do ({@link DatabaseOutageIT}): they
 * retry while their wait lasts, fail with the last error when it runs out, and at once for a zero wait.
 */
class ReadWriteOutageIT {

    /** The waiting registry's answer budget: how far past its wait a call may run (contract 8). */
    private static final Duration SLACK = Duration.ofMillis(250);

    /**
     * Thread scheduling on a shared test machine: the margin of a {@link TimingBound}, an overrun while this JVM
     * stalled longer than that is measured again.
     */
    private static final Duration NOISE = Duration.ofMillis(250);

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record Outage(JdbcLockRegistry holder, JdbcLockRegistry waiter, FaultProxy proxy, String key) {}

    @FunctionalInterface
    private interface Scenario {
        void run(Outage outage) throws Exception;
    }

    /** Which side of a read/write lock a measured call waits for. */
    private enum Side {
        READ,
        WRITE;

        Function<String, FencedLock> of(JdbcLockRegistry registry) {
            return this == READ ? reads(registry) : writes(registry);
        }
    }

    /** A measured scenario: what the call returned is asserted inside, its time bound is returned. */
    @FunctionalInterface
    private interface TimedScenario {
        Timed run(Outage outage) throws Exception;
    }

    /** Runs {@code scenario} on a fresh table, proxy and key per measurement, through a {@link TimingBound}. */
    private static void checkTimed(String test, TestDatabase database, Side side, TimedScenario scenario)
            throws Exception {
        TimingBound.of("ReadWriteOutageIT." + test + "[" + database + ", " + side + "]", NOISE)
                .check(() -> {
                    AtomicReference<Timed> timed = new AtomicReference<>();
                    withOutage(database, outage -> timed.set(scenario.run(outage)));
                    return timed.get();
                });
    }

    private static void withOutage(TestDatabase database, Scenario scenario) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("rwoutage");
        String key = "rw-outage-" + System.nanoTime();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry holder = TestDatabase.created(JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .initializeSchema(true)
                        .build());
                FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                HikariDataSource viaProxy = database.poolThrough("distlock-via-proxy", proxy.port(), null);
                JdbcLockRegistry waiter = TestDatabase.created(JdbcLockRegistry.builder(viaProxy)
                        .tableName(table)
                        .options(RegistryOptions.defaults().withAnswerBudget(SLACK))
                        .build())) {
            try {
                // The read/write table is set up (and the waiter's pool connected) before any outage.
                holder.readWriteLock(key + "-setup").writeLock().acquire().close();
                waiter.readWriteLock(key + "-setup").readLock().acquire().close();
                scenario.run(new Outage(holder, waiter, proxy, key));
            } finally {
                proxy.restore();
                database.dropTable(direct, table);
                database.dropTable(direct, table + "_rw");
            }
        }
    }

    private static Function<String, FencedLock> reads(JdbcLockRegistry registry) {
        return key -> registry.readWriteLock(key).readLock();
    }

    private static Function<String, FencedLock> writes(JdbcLockRegistry registry) {
        return key -> registry.readWriteLock(key).writeLock();
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void readAndWriteWaitersRideOutADatabaseRestartAndGetTheKeyWhenItIsReleased(TestDatabase database)
            throws Exception {
        withOutage(database, outage -> {
            ExecutorService waiters = Executors.newFixedThreadPool(2);
            try {
                String readKey = outage.key() + "-r";
                String writeKey = outage.key() + "-w";
                LockHandle heldForRead = writes(outage.holder()).apply(readKey).acquire();
                LockHandle heldForWrite =
                        writes(outage.holder()).apply(writeKey).acquire();
                Future<Optional<LockHandle>> reader = waiters.submit(
                        () -> reads(outage.waiter()).apply(readKey).tryAcquire(Duration.ofSeconds(60)));
                Future<Optional<LockHandle>> writer = waiters.submit(
                        () -> writes(outage.waiter()).apply(writeKey).tryAcquire(Duration.ofSeconds(60)));
                Thread.sleep(500); // the waiters poll
                outage.proxy().refuse(); // the restart: connections cut, new ones refused
                Thread.sleep(1500);
                assertThat(reader.isDone())
                        .as("the reader still waits during the outage")
                        .isFalse();
                assertThat(writer.isDone())
                        .as("the writer still waits during the outage")
                        .isFalse();
                outage.proxy().restore();
                Thread.sleep(500);
                heldForRead.close();
                heldForWrite.close();

                Optional<LockHandle> read = reader.get(60, TimeUnit.SECONDS);
                Optional<LockHandle> write = writer.get(60, TimeUnit.SECONDS);
                assertThat(read).as("the reader got the key after the restart").isPresent();
                assertThat(write).as("the writer got the key after the restart").isPresent();
                try (LockHandle r = read.get();
                        LockHandle w = write.get()) {
                    assertThat(r.isValid()).isTrue();
                    assertThat(w.isValid()).isTrue();
                    assertThat(w.token().isNewerThan(heldForWrite.token())).isTrue();
                    assertThat(writes(outage.holder()).apply(readKey).tryAcquire(Duration.ZERO))
                            .as("the reader holds its key: no writer gets in")
                            .isEmpty();
                    assertThat(reads(outage.holder()).apply(writeKey).tryAcquire(Duration.ZERO))
                            .as("the writer holds its key: no reader gets in")
                            .isEmpty();
                }
                Optional<LockHandle> after =
                        writes(outage.holder()).apply(readKey).tryAcquire(Duration.ofSeconds(10));
                assertThat(after)
                        .as("the reader held the key once: its one release freed it")
                        .isPresent();
                after.get().close();
            } finally {
                waiters.shutdownNow();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void waitThatEndsDuringAnOutageFailsWithTheLastErrorWhenItEnds(TestDatabase database) throws Exception {
        for (Side side : Side.values()) {
            checkTimed("waitThatEndsDuringAnOutageFailsWithTheLastErrorWhenItEnds", database, side, outage -> {
                Duration wait = Duration.ofSeconds(2);
                try (LockHandle held =
                        writes(outage.holder()).apply(outage.key()).acquire()) {
                    outage.proxy().refuse();
                    FencedLock lock = side.of(outage.waiter()).apply(outage.key());
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> lock.tryAcquire(wait))
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
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void zeroWaitDuringAnOutageFailsAtOnce(TestDatabase database) throws Exception {
        for (Side side : Side.values()) {
            checkTimed("zeroWaitDuringAnOutageFailsAtOnce", database, side, outage -> {
                outage.proxy().refuse();
                FencedLock lock = side.of(outage.waiter()).apply(outage.key());
                long start = System.nanoTime();
                assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(outage.key());
                return Timed.since(start, SLACK.plus(NOISE));
            });
        }
    }

    /**
     * A decision whose commit answer was lost wrote the hold; the retry of the same call (same
     * owner) finds and adopts it instead of taking the key twice or waiting behind itself.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void retryOfADecisionWhoseAnswerWasLostAdoptsTheHoldItWrote(TestDatabase database) throws Exception {
        database.require();
        String lockTable = TestDatabase.uniqueTableName("rwadopt");
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                LockTableSetup setup = new LockTableSetup(
                        direct,
                        null,
                        new TableName(lockTable),
                        new LockTableSetup.Options(true, false, Duration.ofMinutes(1), Clock.systemUTC()))) {
            JdbcReadWriteTable table = new JdbcReadWriteTable(setup, lockTable, true);
            try {
                for (LockMode mode : LockMode.values()) {
                    String key = "rw-adopt-" + mode + "-" + System.nanoTime();
                    OwnerId owner = new OwnerId("adopting", 1, 1);
                    long intent = mode == LockMode.WRITE ? 3_000_000 : 0;
                    long lost = table.attempt(
                            new ReadWriteTake(key, mode, owner, 60_000_000, intent, "h"), CallTimeout.of(TIMEOUT));
                    assertThat(lost)
                            .as("the first decision took the key (%s)", mode)
                            .isPositive();

                    long retried = table.attempt(
                            new ReadWriteTake(key, mode, owner, 60_000_000, intent, "h"), CallTimeout.of(TIMEOUT));
                    assertThat(retried)
                            .as("the retry adopted the hold with its token (%s)", mode)
                            .isEqualTo(lost);

                    assertThat(table.release(key, mode, owner.value(), CallTimeout.of(TIMEOUT)))
                            .isTrue();
                    long other = table.attempt(
                            new ReadWriteTake(key, LockMode.WRITE, new OwnerId("other", 1, 1), 60_000_000, 0, "h"),
                            CallTimeout.of(TIMEOUT));
                    assertThat(other)
                            .as("one release freed the key: the call held it once (%s)", mode)
                            .isPositive();
                }
            } finally {
                database.dropTable(direct, lockTable + "_rw");
                database.dropTable(direct, lockTable);
            }
        }
    }
}
