package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.LockRegistryContract;
import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The lock-core contract plus what is particular to a lock table, run against one database.
 * Registries alternate between two connection pools, standing for two JVMs.
 */
abstract class JdbcLockRegistryContract extends LockRegistryContract {

    private static Fixture fixture;
    private int created;

    /** Two pools over the database under test and the lock table of this test class. */
    private record Fixture(TestDatabase database, String table, HikariDataSource poolA, HikariDataSource poolB) {}

    protected abstract TestDatabase database();

    /**
     * Connections a registry keeps once it has waited: PostgreSQL's registries keep one to listen
     * for releases; waiters themselves keep none anywhere.
     */
    protected int listenerConnections() {
        return 0;
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        Fixture f = fixture();
        DataSource pool = created++ % 2 == 0 ? f.poolA : f.poolB;
        return JdbcLockRegistry.builder(pool)
                .tableName(f.table)
                .options(options)
                .build();
    }

    /** A lazy pool through the proxies, so that the registry's first call connects and checks its table. */
    @Override
    protected LockRegistry createRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        Fixture f = fixture();
        if (f.database == TestDatabase.H2) {
            return null; // in the test JVM: no connection to slow
        }
        FaultProxy proxy = proxies.to(f.database.host(), f.database.port());
        HikariDataSource pool =
                closeAfterTest(f.database.lazyPoolThrough("distlock-proxied", proxy.port(), Duration.ofSeconds(30)));
        return JdbcLockRegistry.builder(pool)
                .tableName(f.table)
                .options(options)
                .build();
    }

    private Fixture fixture() {
        database().require();
        if (fixture == null) {
            TestDatabase database = database();
            String table = TestDatabase.uniqueTableName("it");
            HikariDataSource poolA = database.pool("distlock-a", 4);
            HikariDataSource poolB = database.pool("distlock-b", 4);
            TestDatabase.created(JdbcLockRegistry.builder(poolA)
                            .tableName(table)
                            .initializeSchema(true)
                            .build())
                    .close();
            fixture = new Fixture(database, table, poolA, poolB);
        }
        return fixture;
    }

    @AfterAll
    static void dropTableAndClosePools() {
        if (fixture != null) {
            fixture.database.dropTable(fixture.poolA, fixture.table);
            fixture.poolA.close();
            fixture.poolB.close();
            fixture = null;
        }
    }

    private String table() {
        return fixture().table;
    }

    private JdbcLockRegistry.Builder builder(DataSource dataSource) {
        return JdbcLockRegistry.builder(dataSource).tableName(table()).leaseTime(leaseTime());
    }

    // --- Fencing: the row goes, the fence keeps rising --------------------------------------

    @Test
    void releaseDeletesTheRowAndTheTokenStillRisesInANewRegistry() throws Exception {
        String key = key();
        FencingToken first;
        try (LockHandle handle = registryA.obtain(key).acquire()) {
            first = handle.token();
            assertThat(row(fixture().poolB, key).fence()).isEqualTo(first.value());
        }
        assertThat(rowExists(fixture().poolB, key))
                .as("release deletes the row")
                .isFalse();

        try (HikariDataSource otherJvm = database().pool("distlock-restarted", 1);
                JdbcLockRegistry restarted = builder(otherJvm).build();
                LockHandle handle = restarted.obtain(key).acquire()) {
            assertThat(handle.token().isNewerThan(first)).isTrue();
            assertThat(row(otherJvm, key).owner()).isNotNull();
        }
    }

    // --- Expiry by the database's clock ---------------------------------------------------

    @Test
    void registriesWhoseClocksDisagreeByMinutesStillExcludeEachOther() throws Exception {
        String key = key();
        // Two "JVMs": clocks 7 minutes ahead and 5 minutes behind, sessions 16 hours apart in time zone.
        try (HikariDataSource eastPool = database().pool("distlock-east", 2, "+09:00", true);
                HikariDataSource westPool = database().pool("distlock-west", 2, "-07:00", true);
                JdbcLockRegistry ahead = builder(eastPool)
                        .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(7)))
                        .build();
                JdbcLockRegistry behind = builder(westPool)
                        .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-5)))
                        .build()) {
            assertThat(ahead.clockOffset()).isBetween(Duration.ofSeconds(415), Duration.ofSeconds(425));
            assertThat(behind.clockOffset()).isBetween(Duration.ofSeconds(-305), Duration.ofSeconds(-295));

            long start = System.nanoTime();
            LockHandle first =
                    ahead.obtain(key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
            assertThat(behind.obtain(key).tryAcquire(Duration.ZERO))
                    .as("the registry whose clock is behind must not see the lease as expired")
                    .isEmpty();
            Optional<LockHandle> second = behind.obtain(key)
                    .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3), leaseTime());
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(second)
                    .as("the lease ends after its lease time, not minutes or hours later")
                    .isPresent();
            assertThat(waited).isGreaterThanOrEqualTo(leaseTime().dividedBy(2));
            assertThat(first.isValid()).isFalse();
            first.close(); // a stale release: must leave the new owner's row alone
            assertThat(ahead.obtain(key).tryAcquire(Duration.ZERO))
                    .as("the registry whose clock is ahead must not see the new lease as expired")
                    .isEmpty();
            assertThat(second.get().token().isNewerThan(first.token())).isTrue();
            second.get().close();
        }
    }

    // --- Own short transactions ------------------------------------------------------------

    @Test
    void lockRowIsCommittedWhileTheCallersTransactionIsStillOpen() throws Exception {
        String key = key();
        HikariDataSource pool = fixture().poolA;
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(pool));
        // Over the proxy, a plain getConnection() would return the caller's transactional connection.
        try (JdbcLockRegistry inTransaction =
                builder(new TransactionAwareDataSourceProxy(pool)).build()) {
            String callersKey = key("callers-own-row");
            LockHandle handle = transaction.execute(status -> {
                try {
                    new JdbcTemplate(pool)
                            .update(
                                    "INSERT INTO " + table() + " (lock_key, owner, fence) VALUES (?, 'caller', 99)",
                                    callersKey);
                    LockHandle held = inTransaction.obtain(key).acquire();
                    Row seenElsewhere = row(fixture().poolB, key);
                    assertThat(seenElsewhere.owner())
                            .as("another connection sees the lock row before the caller commits")
                            .isNotNull();
                    assertThat(registryB.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                    assertThat(rowExists(fixture().poolB, callersKey))
                            .as("the lock statements did not commit the caller's own work")
                            .isFalse();
                    status.setRollbackOnly();
                    return held;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(registryB.obtain(key).tryAcquire(Duration.ZERO))
                    .as("the caller's rollback does not undo the lock")
                    .isEmpty();
            assertThat(row(fixture().poolB, key).fence())
                    .isEqualTo(handle.token().value());
            handle.close();
        }
        Optional<LockHandle> next = registryB.obtain(key).tryAcquire(Duration.ZERO);
        assertThat(next).isPresent();
        next.get().close();
    }

    @Test
    void poolsWithoutAutoCommitStillCommitEachLockStatement() throws Exception {
        String key = key();
        try (HikariDataSource manualCommit = database().pool("distlock-manual", 2, null, false);
                JdbcLockRegistry registry = builder(manualCommit).build()) {
            LockHandle held = registry.obtain(key).acquire();
            assertThat(registryB.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
            held.close();
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(Duration.ZERO);
            assertThat(next).as("the release was committed").isPresent();
            next.get().close();
        }
    }

    // --- First use of a key ---------------------------------------------------------------

    @Test
    void racingFirstUsesOfAKeyYieldExactlyOneOwner() throws Exception {
        List<LockRegistry> racers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            racers.add(newRegistry());
        }
        // A zero wait fails at once on a passing failure (contract 8): an answer later than the call's bound on a
        // loaded machine. A round with such a failure still may not have two owners, and does not count as clean.
        int clean = 0;
        int rounds = 0;
        while (clean < 10) {
            assertThat(rounds).as("rounds run for 10 without a failed attempt").isLessThan(20);
            String fresh = key("fresh" + rounds++);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<LockHandle>>> attempts = new ArrayList<>();
            for (LockRegistry racer : racers) {
                attempts.add(inThread(() -> {
                    start.await();
                    return racer.obtain(fresh).tryAcquire(Duration.ZERO);
                }));
            }
            start.countDown();
            List<LockHandle> winners = new ArrayList<>();
            int failed = 0;
            for (Future<Optional<LockHandle>> attempt : attempts) {
                try {
                    attempt.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(DatabaseUnavailableException.class);
                    failed++;
                }
            }
            assertThat(winners).as("owners of %s", fresh).hasSizeLessThanOrEqualTo(1);
            if (failed == 0) {
                assertThat(winners).as("owners of %s", fresh).hasSize(1);
                assertThat(winners.get(0).token().value()).isPositive();
                clean++;
            }
            winners.forEach(LockHandle::close);
        }
    }

    // --- No connection held ---------------------------------------------------------------

    @Test
    void holderAndWaiterOnAOneConnectionPoolLeaveItFreeForOthers() throws Exception {
        String key = key();
        // A caller that kept the only connection (besides the listener's) would make the others' getConnection() time
        // out.
        try (HikariDataSource single = database()
                        .pool("distlock-single", 1 + listenerConnections(), null, true, Duration.ofSeconds(2));
                JdbcLockRegistry holder = builder(single).build();
                JdbcLockRegistry waiter = builder(single).build()) {
            LockHandle held = holder.obtain(key).acquire(); // renewed by the watchdog over the same connection
            Future<Optional<LockHandle>> waiting =
                    inThread(() -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(20)));
            long until = System.nanoTime() + leaseTime().multipliedBy(2).toNanos();
            int borrowed = 0;
            while (System.nanoTime() < until) {
                try (Connection connection = single.getConnection()) {
                    assertThat(connection.isValid(1)).isTrue();
                    borrowed++;
                }
                Thread.sleep(50);
            }
            assertThat(borrowed).isGreaterThan(5);
            assertThat(waiting.isDone()).as("the waiter still waits").isFalse();
            assertThat(held.isValid())
                    .as("the holder's renewals got the connection")
                    .isTrue();
            held.close();
            Optional<LockHandle> acquired = waiting.get(10, TimeUnit.SECONDS);
            assertThat(acquired).isPresent();
            try (Connection connection = single.getConnection()) {
                assertThat(connection.isValid(1))
                        .as("a held lock keeps no connection")
                        .isTrue();
            }
            acquired.get().close();
        }
    }

    // --- Statements bounded by the wait time ----------------------------------------------

    /** How late a statement cancelled at its query timeout may return: the database's answer to the cancel. */
    private static final Duration CANCEL_SLACK = Duration.ofSeconds(1);

    /**
     * How long one lock statement waits on a row lock when the wait time has already run out:
     * the one-second minimum of a JDBC query timeout.
     */
    protected Duration shortestRowLockWait() {
        return Duration.ofSeconds(1);
    }

    @Test
    void waiterBlockedByATransactionHoldingTheRowGivesUpAtItsWaitTimeAndLeavesNothingBehind() throws Exception {
        String key = key();
        new JdbcTemplate(fixture().poolA)
                .update("INSERT INTO " + table() + " (lock_key, fence) VALUES (?, 1)", key); // a free row
        // One connection without auto-commit: a cancelled statement that was not rolled back would
        // leave it in a failed transaction, and the last acquisition below would fail.
        try (HikariDataSource single = database().pool("distlock-blocked", 1 + listenerConnections(), null, false);
                JdbcLockRegistry blocked = builder(single).build();
                Connection other = fixture().poolB.getConnection()) {
            other.setAutoCommit(false);
            try {
                lockRow(other, key);

                long start = System.nanoTime();
                Optional<LockHandle> waited = blocked.obtain(key).tryAcquire(Duration.ofSeconds(2));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(waited)
                        .as("a row locked past the wait time is not free")
                        .isEmpty();
                assertThat(took)
                        .isBetween(Duration.ofSeconds(2), Duration.ofSeconds(2).plus(CANCEL_SLACK));

                start = System.nanoTime();
                assertThat(blocked.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("a zero wait is bounded by the shortest row lock wait")
                        .isLessThan(shortestRowLockWait().plus(CANCEL_SLACK));
            } finally {
                other.rollback();
                other.setAutoCommit(true);
            }
        }
        assertThat(row(fixture().poolB, key).owner())
                .as("the cancelled statements were rolled back")
                .isNull();
        try (HikariDataSource single = database().pool("distlock-unblocked", 1, null, false);
                JdbcLockRegistry unblocked = builder(single).build()) {
            Optional<LockHandle> next = unblocked.obtain(key).tryAcquire(Duration.ZERO);
            assertThat(next)
                    .as("the row is free once the other transaction ends")
                    .isPresent();
            next.get().close();
        }
    }

    // --- Keys, tables, failures -----------------------------------------------------------

    @Test
    void keyAsWideAsTheColumnIsStoredWhateverItsCharacters() throws Exception {
        String wide = "é😀".repeat(84) + "xyz"; // 255 UTF-16 chars, 843 UTF-8 bytes
        assertThat(wide).hasSize(255);
        try (LockHandle held = registryA.obtain(wide).acquire()) {
            assertThat(registryB.obtain(wide).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(registryB.obtain(wide.substring(0, 254)).tryAcquire(Duration.ZERO))
                    .hasValueSatisfying(LockHandle::close);
        }
        assertThatThrownBy(() -> registryA.obtain(wide + "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 255");
    }

    @Test
    void missingTableFailsTheStartUpCheckAndLockCallsWithTheDdlToRun() throws Exception {
        String missing = TestDatabase.uniqueTableName("missing");
        try (JdbcLockRegistry registry =
                JdbcLockRegistry.builder(fixture().poolA).tableName(missing).build()) {
            for (ThrowingCallable call : List.<ThrowingCallable>of(
                    () -> registry.verify(Duration.ofSeconds(5)),
                    () -> registry.obtain("k").tryAcquire(Duration.ofSeconds(1)))) {
                assertThatThrownBy(call)
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("'" + missing + "'")
                        .hasMessageContaining("classpath:dev/distlock/jdbc/schema-")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + missing)
                        .hasMessageContaining("initializeSchema(true)");
            }
        }
    }

    @Test
    void initializeSchemaCreatesAMissingTableAndToleratesAnExistingOne() throws Exception {
        String created = TestDatabase.uniqueTableName("created");
        try {
            for (int run = 0; run < 2; run++) {
                try (JdbcLockRegistry registry = JdbcLockRegistry.builder(fixture().poolA)
                                .tableName(created)
                                .initializeSchema(true)
                                .build();
                        LockHandle handle = registry.obtain(key()).acquire()) {
                    assertThat(handle.isValid()).isTrue();
                    assertThat(registry.tableName()).isEqualTo(created);
                }
            }
        } finally {
            database().dropTable(fixture().poolA, created);
        }
    }

    @Test
    void databaseFailureNamesBackendAddressAndKey() throws Exception {
        HikariDataSource closing = database().pool("distlock-closing", 1);
        try (JdbcLockRegistry registry = builder(closing).build()) {
            closing.close();
            String key = key();
            assertThatThrownBy(() -> registry.obtain(key).tryAcquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("jdbc")
                    .hasMessageContaining(key)
                    .hasMessageContaining(database().hostPart())
                    .hasMessageNotContaining("password");
        }
    }

    /** Locks the key's row in {@code connection}'s open transaction, as a long transaction touching the table would. */
    private void lockRow(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT owner FROM " + table() + " WHERE lock_key = ? FOR UPDATE")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                assertThat(rs.next()).as("row of %s", key).isTrue();
            }
        }
    }

    private boolean rowExists(DataSource dataSource, String key) {
        Integer rows = new JdbcTemplate(dataSource)
                .queryForObject("SELECT COUNT(*) FROM " + table() + " WHERE lock_key = ?", Integer.class, key);
        return rows != null && rows > 0;
    }

    private Row row(DataSource dataSource, String key) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT owner, fence FROM " + table() + " WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                assertThat(rs.next()).as("row of %s", key).isTrue();
                return new Row(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Row(String owner, long fence) {}
}
