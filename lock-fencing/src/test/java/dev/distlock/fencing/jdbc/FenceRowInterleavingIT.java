package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two holders of one lock key in two transactions: the evicted (stale) one and the next one. The
 * fence row keeps their transactions apart, so the next holder's read-modify-write never starts
 * from a value the stale one is about to overwrite, and the stale one is refused once the next one
 * has registered. The control runs the same interleaving with the token only on the write (the
 * column form) and loses an update.
 */
class FenceRowInterleavingIT {

    private static final String RESOURCE = "stock:SKU-1";
    private static final FencingClaim STALE = new FencingClaim("redis", RESOURCE, FencingToken.of(10));
    private static final FencingClaim NEXT = new FencingClaim("redis", RESOURCE, FencingToken.of(20));

    private HikariDataSource pool;
    private final String fenceTable = FenceDatabase.uniqueTableName("interleave");
    private final String stockTable = FenceDatabase.uniqueTableName("stock");

    private JdbcFenceStore store(FenceDatabase database) {
        database.require();
        pool = database.pool("fence-interleave", 4);
        FenceDatabase.execute(
                pool,
                "CREATE TABLE " + stockTable + " (sku VARCHAR(64) PRIMARY KEY, quantity INT NOT NULL,"
                        + " last_token BIGINT NOT NULL)",
                "INSERT INTO " + stockTable + " (sku, quantity, last_token) VALUES ('SKU-1', 100, 0)");
        return JdbcFenceStore.builder(pool)
                .tableName(fenceTable)
                .initializeSchema(true)
                .build();
    }

    @AfterEach
    void dropTables() {
        if (pool != null) {
            FenceDatabase.dropTables(pool, fenceTable, stockTable);
            pool.close();
        }
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void staleHoldersTransactionWaitsForTheFenceRowThenIsRefusedOnceTheNextHolderCommits(FenceDatabase database)
            throws Exception {
        JdbcFenceStore store = store(database);
        store.admitWrite(RESOURCE, STALE); // the evicted holder wrote before

        try (Connection next = transaction()) {
            store.admitWrite(next, RESOURCE, NEXT);
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Fence> stale = CompletableFuture.supplyAsync(() -> {
                try (Connection connection = transaction()) {
                    started.countDown();
                    try {
                        return store.admitWrite(connection, RESOURCE, STALE);
                    } finally {
                        connection.rollback();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> stale.get(1, TimeUnit.SECONDS))
                    .as("the stale holder waits while the next holder's transaction holds the fence row")
                    .isInstanceOf(TimeoutException.class);
            next.commit();

            assertThatThrownBy(() -> stale.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(store.fenceOf(RESOURCE).map(Fence::highest)).contains(NEXT.token());
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void evictedHolderAndNextHolderBothBuyingLoseNoUpdateWhenTheFenceIsRaisedBeforeTheRead(FenceDatabase database)
            throws Exception {
        JdbcFenceStore store = store(database);
        assertThat(buyInterleaved(store, true)).as("100 - 2 - 3").isEqualTo(95);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void controlWithTheTokenOnlyOnTheWriteLosesAnUpdate(FenceDatabase database) throws Exception {
        JdbcFenceStore store = store(database);
        assertThat(buyInterleaved(store, false))
                .as("the next holder bought from the stock the evicted holder had read")
                .isEqualTo(97);
    }

    /**
     * The evicted holder (token 10) reads the stock and pauses; the next holder (token 20) reads,
     * then both write through the column form, the evicted one first; each buys (2 and 3 items).
     * With {@code fenced}, each raises the fence first in its transaction. Returns the stock left.
     */
    private int buyInterleaved(JdbcFenceStore store, boolean fenced) throws Exception {
        try (Connection evicted = transaction()) {
            if (fenced) {
                store.admitWrite(evicted, RESOURCE, STALE);
            }
            int seenByEvicted = quantity(evicted);
            CountDownLatch nextHasRead = new CountDownLatch(1);
            CountDownLatch evictedDone = new CountDownLatch(1);
            CompletableFuture<Void> next = CompletableFuture.runAsync(() -> {
                try (Connection connection = transaction()) {
                    try {
                        if (fenced) {
                            store.admitWrite(connection, RESOURCE, NEXT);
                        }
                        int seen = quantity(connection);
                        nextHasRead.countDown();
                        evictedDone.await(30, TimeUnit.SECONDS);
                        write(connection, seen - 3, NEXT);
                        connection.commit();
                    } catch (RuntimeException | SQLException | InterruptedException e) {
                        connection.rollback();
                        throw new IllegalStateException(e);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // Unfenced, the next holder reads now; fenced, it waits for the row and this wait runs out.
            boolean nextReadFirst = nextHasRead.await(2, TimeUnit.SECONDS);
            assertThat(nextReadFirst)
                    .as("the next holder read while the evicted one paused")
                    .isEqualTo(!fenced);
            write(evicted, seenByEvicted - 2, STALE);
            evicted.commit();
            evictedDone.countDown();
            next.get(60, TimeUnit.SECONDS);
        }
        try (Connection connection = pool.getConnection()) {
            return quantity(connection);
        }
    }

    private Connection transaction() throws SQLException {
        Connection connection = pool.getConnection();
        connection.setAutoCommit(false);
        return connection;
    }

    private int quantity(Connection connection) throws SQLException {
        try (PreparedStatement statement =
                        connection.prepareStatement("SELECT quantity FROM " + stockTable + " WHERE sku = 'SKU-1'");
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private void write(Connection connection, int quantity, FencingClaim claim) throws SQLException {
        int written = FencedUpdate.table(stockTable)
                .set("quantity", quantity)
                .where("sku", "SKU-1")
                .execute(connection, claim);
        assertThat(written).isEqualTo(1);
    }
}
