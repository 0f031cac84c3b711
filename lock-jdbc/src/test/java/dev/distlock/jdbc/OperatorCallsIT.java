package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an operator asks the backend (who holds a key, evict it, is the table usable), answered
 * from the table, about a lock taken through another registry's pool.
 */
class OperatorCallsIT {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String HOLDER = "inventory-service@host-a pid 4242 thread order-worker-7";

    private static JdbcLockBackend backend(HikariDataSource pool, String table) {
        return new JdbcLockBackend(new LockTableSetup(
                pool,
                null,
                new TableName(table),
                new LockTableSetup.Options(false, false, Duration.ofMinutes(1), Clock.systemUTC())));
    }

    private static LockRequest request(String key, String registry) {
        return new LockRequest(key, new OwnerId(registry, 1, 1), LEASE, Deadline.after(Duration.ZERO), HOLDER);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anotherRegistrySeesTheHolderAndCanEvictIt(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("operator");
        String key = "orders:" + System.nanoTime();
        try (HikariDataSource poolA = database.pool("distlock-holder", 2);
                HikariDataSource poolB = database.pool("distlock-operator", 2)) {
            try (JdbcLockRegistry created = TestDatabase.created(JdbcLockRegistry.builder(poolA)
                            .tableName(table)
                            .initializeSchema(true)
                            .build());
                    JdbcLockBackend holder = backend(poolA, table);
                    JdbcLockBackend operator = backend(poolB, table)) {
                assertThat(operator.holderOf(key)).as("nobody holds it yet").isEmpty();
                JdbcLease lease = holder.tryAcquire(request(key, "registry-a")).orElseThrow();

                Optional<LockHolder> seen = operator.holderOf(key);
                assertThat(seen).isPresent();
                assertThat(seen.get().key()).isEqualTo(key);
                assertThat(seen.get().holder()).isEqualTo(HOLDER);
                assertThat(seen.get().token()).isEqualTo(lease.token());
                assertThat(seen.get().leaseLeft())
                        .hasValueSatisfying(
                                left -> assertThat(left).isPositive().isLessThanOrEqualTo(LEASE));

                assertThat(operator.forceRelease(key)).isTrue();
                assertThat(operator.holderOf(key)).as("evicted").isEmpty();
                assertThat(operator.forceRelease(key))
                        .as("nothing left to evict")
                        .isFalse();
                assertThat(holder.renew(lease, LEASE))
                        .as("the evicted holder learns it lost the key")
                        .isFalse();

                JdbcLease next = operator.tryAcquire(request(key, "registry-b")).orElseThrow();
                assertThat(next.token().isNewerThan(lease.token()))
                        .as("the next holder's token is larger, so the evicted holder's writes are refused")
                        .isTrue();
                assertThat(holder.release(lease))
                        .as("the evicted holder's late release leaves the next holder alone")
                        .isFalse();
                assertThat(operator.holderOf(key))
                        .hasValueSatisfying(h -> assertThat(h.token()).isEqualTo(next.token()));
                assertThat(operator.release(next)).isTrue();
            } finally {
                database.dropTable(poolA, table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void registryTellsWhoHoldsAKeyTakenInAnotherRegistry(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("holderof");
        String key = "orders:" + System.nanoTime();
        try (HikariDataSource poolA = database.pool("distlock-holder", 2);
                HikariDataSource poolB = database.pool("distlock-operator", 2)) {
            try (JdbcLockRegistry holder = TestDatabase.created(JdbcLockRegistry.builder(poolA)
                            .tableName(table)
                            .initializeSchema(true)
                            .build());
                    JdbcLockRegistry operator =
                            JdbcLockRegistry.builder(poolB).tableName(table).build()) {
                operator.verify(Duration.ofSeconds(1));
                LockHandle held = holder.obtain(key).acquire();
                Optional<LockHolder> seen = operator.holderOf(key);
                assertThat(seen).isPresent();
                assertThat(seen.get().holder())
                        .as("the holder description stored with the row")
                        .isNotBlank();
                assertThat(seen.get().token()).isEqualTo(held.token());
                assertThat(seen.get().leaseLeft())
                        .hasValueSatisfying(left -> assertThat(left).isPositive());

                assertThat(operator.forceRelease(key)).isTrue();
                try (LockHandle next =
                        operator.obtain(key).tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                    assertThat(next.token().isNewerThan(held.token())).isTrue();
                }
                held.close(); // the evicted holder's release does not throw
            } finally {
                database.dropTable(poolA, table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void verifyPassesOnAUsableTableAndNamesTheDdlForAMissingOne(TestDatabase database) {
        database.require();
        String table = TestDatabase.uniqueTableName("verify");
        String missing = TestDatabase.uniqueTableName("missing");
        try (HikariDataSource pool = database.pool("distlock-verify", 2)) {
            try (JdbcLockRegistry created = TestDatabase.created(JdbcLockRegistry.builder(pool)
                            .tableName(table)
                            .initializeSchema(true)
                            .build());
                    JdbcLockBackend usable = backend(pool, table);
                    JdbcLockBackend withoutTable = backend(pool, missing)) {
                usable.verify(Duration.ofSeconds(1));
                assertThatThrownBy(() -> withoutTable.verify(Duration.ofSeconds(1)))
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(database.hostPart())
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + missing)
                        .hasMessageContaining("initializeSchema(true)");
            } finally {
                database.dropTable(pool, table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void verifyFailsWithinItsTimeoutWhenTheDatabaseIsSilent(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("verifysilent");
        Duration timeout = Duration.ofMillis(500);
        // The call promises its timeout plus the overrun of an operator call (the default answer budget, 1 s); the
        // rest of the bound is room for a loaded machine, and the margin of a TimingBound: an overrun while this JVM
        // stalled longer than that is measured again.
        Duration promise = timeout.plus(RegistryOptions.DEFAULT_ANSWER_BUDGET);
        Duration bound = Duration.ofSeconds(2);
        try (HikariDataSource direct = database.pool("distlock-direct", 1);
                JdbcLockRegistry created = TestDatabase.created(JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build())) {
            try {
                // Each measurement silences a proxy of its own, with a pool and backend that used it moments ago.
                TimingBound.of(
                                "OperatorCallsIT.verifyFailsWithinItsTimeoutWhenTheDatabaseIsSilent[" + database + "]",
                                bound.minus(promise))
                        .check(() -> {
                            try (FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                                    HikariDataSource viaProxy =
                                            database.poolThrough("distlock-via-proxy", proxy.port(), null);
                                    JdbcLockBackend backend = backend(viaProxy, table)) {
                                try {
                                    backend.verify(Duration.ofSeconds(1));
                                    proxy.stall();
                                    long start = System.nanoTime();
                                    assertThatThrownBy(() -> backend.verify(timeout))
                                            .isInstanceOf(LockBackendException.class)
                                            .hasMessageContaining(database.hostPart());
                                    return Timed.since(start, bound);
                                } finally {
                                    proxy.close();
                                }
                            }
                        });
            } finally {
                database.dropTable(direct, table);
            }
        }
    }
}
