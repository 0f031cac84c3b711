package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A registry's first call sets its table up (connect, probe, clock read) before it takes the key: the hold's lease
 * counts from the take, so a slow set-up is not charged to the first lease (contract 4).
 */
class ColdSetUpLeaseIT {

    /** How long the set-up's table probe is held back on its way to the database: more than the lease. */
    private static final Duration SLOW_SET_UP = Duration.ofMillis(1500);

    private static final Duration LEASE = Duration.ofSeconds(1);

    /** Only the set-up's probes ask for no rows this way; no lock statement does. */
    private static final byte[] PROBE = "WHERE 1 = 0".getBytes(StandardCharsets.UTF_8);

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void coldLockTableSetUpIsNotChargedToTheFirstLease(TestDatabase database) throws Exception {
        onColdSetUp(database, setup -> new JdbcLockBackend(setup));
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void coldReadWriteTableCheckIsNotChargedToTheFirstLease(TestDatabase database) throws Exception {
        onColdSetUp(
                database,
                setup -> JdbcReadWriteBackend.locks(setup, false, RegistryOptions.defaults())
                        .writeSide());
        onColdSetUp(
                database,
                setup -> JdbcReadWriteBackend.locks(setup, false, RegistryOptions.defaults())
                        .readSide());
    }

    /** Takes a key through a cold backend whose set-up probe answers {@link #SLOW_SET_UP} late. */
    private static void onColdSetUp(TestDatabase database, Function<LockTableSetup, LockBackend<?>> backendOf)
            throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("coldlease");
        String key = "cold-lease-" + System.nanoTime();
        try (HikariDataSource direct = database.pool("distlock-direct", 2);
                JdbcLockRegistry creator = TestDatabase.created(JdbcLockRegistry.builder(direct)
                        .tableName(table)
                        .initializeSchema(true)
                        .build());
                FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                HikariDataSource viaProxy = database.poolThrough("distlock-via-proxy", proxy.port(), null)) {
            try {
                creator.readWriteLock("created").writeLock().acquire().close(); // both tables exist
                try (LockTableSetup setup = new LockTableSetup(
                        viaProxy,
                        null,
                        new TableName(table),
                        new LockTableSetup.Options(false, false, Duration.ofMinutes(1), Clock.systemUTC()))) {
                    LockBackend<?> backend = backendOf.apply(setup);
                    proxy.delayMessageContaining(PROBE, SLOW_SET_UP);
                    long called = System.nanoTime();
                    BackendLease lease = backend.tryAcquire(new LockRequest(
                                    key, new OwnerId("cold", 1, 1), LEASE, Deadline.after(Duration.ofSeconds(10))))
                            .orElseThrow();
                    long returned = System.nanoTime();
                    assertThat(Duration.ofNanos(lease.grantRequestedAtNanos() - called))
                            .as("the lease counts from the take, after the slow set-up, not from the call")
                            .isGreaterThanOrEqualTo(SLOW_SET_UP);
                    assertThat(lease.grantRequestedAtNanos() - returned)
                            .as("and from before the take's answer arrived")
                            .isNegative();
                }
            } finally {
                database.dropTable(direct, table);
                database.dropTable(direct, table + "_rw");
            }
        }
    }
}
