package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.FreePorts;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceRule;
import dev.distlock.core.fencing.FencingClaim;
import java.io.PrintWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;

/** Bad input and failures of the SQL fence store: each fails at once, with a message that says what to do. */
class JdbcFenceStoreFailuresIT {

    /**
     * How long a failure may take to be reported: the store's or the pool's timeout (1 s, 2 s), with room for a
     * loaded machine.
     */
    private static final Duration REPORTED_WITHIN = Duration.ofSeconds(20);

    private static final FencingClaim CLAIM = new FencingClaim("redis", "stock:SKU-1", FencingToken.of(10));

    private final List<HikariDataSource> pools = new ArrayList<>();
    private final String table = FenceDatabase.uniqueTableName("failures");

    private HikariDataSource pool(FenceDatabase database, int size) {
        database.require();
        HikariDataSource pool = database.pool("fence-failures", size);
        pools.add(pool);
        return pool;
    }

    @AfterEach
    void dropTable() {
        if (!pools.isEmpty()) {
            FenceDatabase.dropTables(pools.get(0), table);
        }
        pools.forEach(HikariDataSource::close);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void missingTableFailsWithItsDdl(FenceDatabase database) {
        JdbcFenceStore store =
                JdbcFenceStore.builder(pool(database, 2)).tableName(table).build();

        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", CLAIM))
                .isInstanceOf(InvalidDataAccessResourceUsageException.class)
                .hasMessageContaining("The fence table '" + table + "' is missing")
                .hasMessageContaining(database == FenceDatabase.H2 ? "jdbc:h2:mem:fencing" : "127.0.0.1")
                .hasMessageContaining("initializeSchema(true)")
                .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + " (");
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void instancesCreatingTheTableAtOnceAllSucceed(FenceDatabase database) throws Exception {
        int instances = 6;
        List<JdbcFenceStore> stores = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            stores.add(JdbcFenceStore.builder(pool(database, 1))
                    .tableName(table)
                    .initializeSchema(true)
                    .build());
        }
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Fence>> firstUses = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            JdbcFenceStore store = stores.get(i);
            FencingClaim claim = new FencingClaim("redis", "stock:SKU-1", FencingToken.of(100 + i));
            firstUses.add(CompletableFuture.supplyAsync(() -> {
                await(start);
                return store.admitWrite("stock:SKU-1", claim);
            }));
        }
        start.countDown();
        int refused = 0;
        for (CompletableFuture<Fence> use : firstUses) {
            try {
                use.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // A lower token that came after a higher one is refused: the rule, not the creation.
                assertThat(e.getCause()).isInstanceOf(dev.distlock.core.fencing.StaleTokenException.class);
                refused++;
            }
        }
        assertThat(refused).isLessThan(instances);
        assertThat(stores.get(0).fenceOf("stock:SKU-1").map(Fence::highest))
                .contains(FencingToken.of(100 + instances - 1));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void checkWaitingForAFenceRowHeldTooLongFailsAtTheStoreTimeoutAndChangesNothing(FenceDatabase database)
            throws Exception {
        HikariDataSource pool = pool(database, 3);
        Duration timeout = Duration.ofSeconds(1);
        JdbcFenceStore store = JdbcFenceStore.builder(pool)
                .tableName(table)
                .initializeSchema(true)
                .timeout(timeout)
                .build();
        // Each measurement waits for a fence row of its own; the room beyond the timeout is the margin of a
        // TimingBound: an overrun while this JVM stalled longer than that is measured again.
        TimingBound.of(
                        "JdbcFenceStoreFailuresIT.checkWaitingForAFenceRowHeldTooLong[" + database + "]",
                        REPORTED_WITHIN.minus(timeout))
                .check(() -> {
                    String resource = "stock:SKU-" + System.nanoTime();
                    FencingClaim claim = new FencingClaim("redis", resource, CLAIM.token());
                    store.admitWrite(resource, claim);
                    Timed timed;
                    try (Connection holder = pool.getConnection()) {
                        holder.setAutoCommit(false);
                        store.admitWrite(holder, resource, claim); // a holder still in its transaction

                        FencingClaim next = new FencingClaim("redis", resource, FencingToken.of(20));
                        long started = System.nanoTime();
                        assertThatThrownBy(() -> store.admitWrite(resource, next))
                                .isInstanceOf(DataAccessException.class)
                                .hasMessageContaining("resource '" + resource + "'")
                                .hasMessageContaining("fence table '" + table + "'");
                        timed = Timed.since(started, REPORTED_WITHIN);
                        holder.rollback();
                    }
                    assertThat(store.fenceOf(resource).map(Fence::highest)).contains(claim.token());
                    return timed;
                });
    }

    @Test
    void unreachableDatabaseFailsWithinThePoolsConnectionTimeout() throws Exception {
        Duration connectionTimeout = Duration.ofSeconds(2);
        // Each measurement asks a pool of its own, for a port nobody listens on.
        TimingBound.of(
                        "JdbcFenceStoreFailuresIT.unreachableDatabaseFailsWithinThePoolsConnectionTimeout",
                        REPORTED_WITHIN.minus(connectionTimeout))
                .check(() -> {
                    HikariConfig config = new HikariConfig();
                    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + FreePorts.next() + "/test?connectTimeout=2");
                    config.setUsername("postgres");
                    config.setConnectionTimeout(connectionTimeout.toMillis());
                    config.setInitializationFailTimeout(-1);
                    try (HikariDataSource down = new HikariDataSource(config)) {
                        JdbcFenceStore store = JdbcFenceStore.builder(down)
                                .tableName(table)
                                .initializeSchema(true)
                                .build();
                        long started = System.nanoTime();
                        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", CLAIM))
                                .isInstanceOf(DataAccessResourceFailureException.class)
                                .hasMessageContaining("could not connect")
                                .hasMessageContaining("fence table '" + table + "'");
                        return Timed.since(started, REPORTED_WITHIN);
                    }
                });
    }

    @Test
    void blankOrOverlongResourceNamesAreRefusedBeforeTheDatabaseIsAsked() {
        JdbcFenceStore store = JdbcFenceStore.builder(new UnusableDataSource()).build();
        String overlong = "r".repeat(FenceRule.MAX_RESOURCE_LENGTH + 1);

        assertThatThrownBy(() -> store.admitWrite(" ", CLAIM))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank name");
        assertThatThrownBy(() -> store.admitRead(null, CLAIM)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.admitWrite(overlong, CLAIM))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the limit is " + FenceRule.MAX_RESOURCE_LENGTH);
        assertThatThrownBy(() -> store.fenceOf("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void invalidTableNameIsRefusedWhenTheStoreIsBuilt() {
        assertThatThrownBy(() -> JdbcFenceStore.builder(new UnusableDataSource())
                        .tableName("fence; DROP TABLE stock")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid fence table name");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A DataSource that fails the test if anything connects. */
    private static final class UnusableDataSource implements DataSource {
        @Override
        public Connection getConnection() {
            throw new AssertionError("the database was asked");
        }

        @Override
        public Connection getConnection(String username, String password) {
            throw new AssertionError("the database was asked");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
