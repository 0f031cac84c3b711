package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceMismatchException;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The rule applied by the fence table, on each database, outside and inside the caller's transaction. */
class JdbcFenceStoreIT {

    private HikariDataSource pool;
    private final String table = FenceDatabase.uniqueTableName("store");

    private JdbcFenceStore store(FenceDatabase database) {
        database.require();
        pool = database.pool("fence-store", 4);
        return JdbcFenceStore.builder(pool)
                .tableName(table)
                .initializeSchema(true)
                .build();
    }

    @AfterEach
    void dropTable() {
        if (pool != null) {
            FenceDatabase.dropTables(pool, table);
            pool.close();
        }
    }

    private static FencingClaim claim(long token) {
        return new FencingClaim("redis", "stock:SKU-1", FencingToken.of(token));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void firstWriteRegistersTheLockAndNewerTokensRaiseTheFence(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        assertThat(store.fenceOf("stock:SKU-1")).isEmpty();

        assertThat(store.admitWrite("stock:SKU-1", claim(10)))
                .isEqualTo(new Fence("stock:SKU-1", "redis", "stock:SKU-1", FencingToken.of(10)));
        assertThat(store.admitWrite("stock:SKU-1", claim(10)).highest()).isEqualTo(FencingToken.of(10));
        assertThat(store.admitWrite("stock:SKU-1", claim(25)).highest()).isEqualTo(FencingToken.of(25));

        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest)).contains(FencingToken.of(25));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void lowerTokenIsRefusedAndLeavesTheFenceAsItWas(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        store.admitWrite("stock:SKU-1", claim(25));

        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", claim(24)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("stock:SKU-1");
                    assertThat(e.lockKey()).isEqualTo("stock:SKU-1");
                    assertThat(e.refused()).isEqualTo(FencingToken.of(24));
                    assertThat(e.highest()).isEqualTo(FencingToken.of(25));
                });
        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest)).contains(FencingToken.of(25));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void readIsCurrentAtOrAboveTheHighestWriteAndStaleBelowIt(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        store.admitRead("stock:SKU-1", claim(1)); // nothing written yet: any read is current
        store.admitWrite("stock:SKU-1", claim(25));

        store.admitRead("stock:SKU-1", claim(25));
        store.admitRead("stock:SKU-1", claim(30));
        assertThatThrownBy(() -> store.admitRead("stock:SKU-1", claim(24))).isInstanceOf(StaleTokenException.class);
        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest))
                .as("a read never raises the fence")
                .contains(FencingToken.of(25));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void tokenOfAnotherLockKeyOrBackendIsRefusedUntilTheResourceIsRebound(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        store.admitWrite("stock:SKU-1", claim(1_800_000_000_000_000L));
        FencingClaim etcd = new FencingClaim("etcd", "stock:SKU-1", FencingToken.of(406));
        FencingClaim otherKey = new FencingClaim("redis", "stock:SKU-2", FencingToken.of(1_900_000_000_000_000L));

        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", etcd))
                .isInstanceOf(FenceMismatchException.class)
                .hasMessageContaining("redis backend")
                .hasMessageContaining("etcd backend")
                .hasMessageContaining("FenceStore.rebind(\"stock:SKU-1\"");
        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", otherKey))
                .isInstanceOf(FenceMismatchException.class)
                .hasMessageContaining("'stock:SKU-2'");

        store.rebind("stock:SKU-1", etcd);
        assertThat(store.admitWrite("stock:SKU-1", new FencingClaim("etcd", "stock:SKU-1", FencingToken.of(407))))
                .isEqualTo(new Fence("stock:SKU-1", "etcd", "stock:SKU-1", FencingToken.of(407)));
        assertThatThrownBy(() -> store.admitWrite("stock:SKU-1", claim(1_900_000_000_000_000L)))
                .as("the old backend's tokens after the move")
                .isInstanceOf(FenceMismatchException.class);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void checkOnTheCallersConnectionIsPartOfItsTransaction(FenceDatabase database) throws SQLException {
        JdbcFenceStore store = store(database);
        store.admitWrite("stock:SKU-1", claim(10));
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            assertThat(store.admitWrite(connection, "stock:SKU-1", claim(20)).highest())
                    .isEqualTo(FencingToken.of(20));
            connection.rollback();
        }
        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest))
                .as("the raise was rolled back with the caller's transaction")
                .contains(FencingToken.of(10));
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void checkOnAnAutoCommittingConnectionIsRefused(FenceDatabase database) throws SQLException {
        JdbcFenceStore store = store(database);
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(true);
            assertThatThrownBy(() -> store.admitWrite(connection, "stock:SKU-1", claim(20)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("setAutoCommit(false)");
        }
        assertThat(store.fenceOf("stock:SKU-1")).isEqualTo(Optional.empty());
    }
}
