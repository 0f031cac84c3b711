package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A registry built while its database is down: building needs no database, the start-up check and
 * lock calls fail clearly (a lock call within its wait time), and once the database is back the
 * next call sets the table up and locks as usual.
 */
class UnreachableDatabaseIT {

    private static final Duration WAIT = Duration.ofSeconds(2);

    /** The pool gives up a connection it cannot get sooner than the wait time, as it should be configured. */
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

    /** The documented overrun of a wait. */
    private static final Duration SLACK = Duration.ofMillis(250);

    /**
     * Thread scheduling on a shared test machine: the margin of a {@link TimingBound}, an overrun while this JVM
     * stalled longer than that is measured again.
     */
    private static final Duration NOISE = Duration.ofMillis(250);

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void registryBuiltWhileTheDatabaseIsDownWorksOnceItIsBack(TestDatabase database) throws Exception {
        database.require();
        String table = TestDatabase.uniqueTableName("down");
        String key = "down-" + System.nanoTime();
        try (FaultProxy proxy = FaultProxy.to(database.host(), database.port());
                HikariDataSource viaProxy =
                        database.lazyPoolThrough("distlock-down", proxy.port(), CONNECTION_TIMEOUT)) {
            proxy.refuse();
            String address = "127.0.0.1:" + proxy.port();
            try (JdbcLockRegistry registry = JdbcLockRegistry.builder(viaProxy)
                    .tableName(table)
                    .initializeSchema(true)
                    .build()) {
                assertThatThrownBy(() -> registry.verify(Duration.ofSeconds(2)))
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("jdbc backend")
                        .hasMessageContaining(address)
                        .hasMessageContaining("Check that the database is running");

                for (int call = 1; call <= 2; call++) { // a failure is not kept: each call tries again
                    TimingBound.of(
                                    "UnreachableDatabaseIT.lockCallFailsWithinItsWait[" + database + ", call " + call
                                            + "]",
                                    NOISE)
                            .check(() -> {
                                proxy.refuse(); // the database is still down
                                String measured = key + "-" + System.nanoTime();
                                long start = System.nanoTime();
                                assertThatThrownBy(
                                                () -> registry.obtain(measured).tryAcquire(WAIT))
                                        .isInstanceOf(LockBackendException.class)
                                        .hasMessageContaining("jdbc backend")
                                        .hasMessageContaining(address)
                                        .hasMessageContaining(measured)
                                        .hasMessageContaining("Check that the database is running");
                                return Timed.since(start, WAIT.plus(SLACK).plus(NOISE));
                            });
                }

                proxy.restore();
                Optional<LockHandle> handle = registry.obtain(key).tryAcquire(Duration.ofSeconds(10));
                assertThat(handle)
                        .as("the first call after the database is back locks")
                        .isPresent();
                registry.verify(Duration.ofSeconds(2));
                try (HikariDataSource direct = database.pool("distlock-direct", 1);
                        JdbcLockRegistry other = JdbcLockRegistry.builder(direct)
                                .tableName(table)
                                .build()) {
                    assertThat(other.obtain(key).tryAcquire(Duration.ZERO))
                            .as("the table was created and the key is held in it")
                            .isEmpty();
                    handle.get().close();
                    try (LockHandle next = other.obtain(key).acquire()) {
                        assertThat(next.token().isNewerThan(handle.get().token()))
                                .isTrue();
                    }
                }
            }
        } finally {
            try (HikariDataSource cleanup = database.pool("distlock-cleanup", 1)) {
                database.dropTable(cleanup, table);
            }
        }
    }
}
