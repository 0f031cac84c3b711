package dev.distlock.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.FencingToken;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/** The fence check inside a Spring-managed transaction, beside JdbcTemplate and JdbcClient writes. */
class JdbcFenceStoreSpringTransactionIT {

    private static final FencingClaim OLD = new FencingClaim("redis", "stock:SKU-1", FencingToken.of(10));
    private static final FencingClaim NEW = new FencingClaim("redis", "stock:SKU-1", FencingToken.of(20));

    private HikariDataSource pool;
    private final String fenceTable = FenceDatabase.uniqueTableName("spring");
    private final String stockTable = FenceDatabase.uniqueTableName("spring_stock");
    private JdbcTemplate jdbcTemplate;
    private JdbcClient jdbcClient;
    private TransactionTemplate transaction;

    private JdbcFenceStore store(FenceDatabase database) {
        database.require();
        pool = database.pool("fence-spring", 3);
        FenceDatabase.execute(
                pool,
                "CREATE TABLE " + stockTable + " (sku VARCHAR(64) PRIMARY KEY, quantity INT NOT NULL,"
                        + " last_token BIGINT NOT NULL)",
                "INSERT INTO " + stockTable + " (sku, quantity, last_token) VALUES ('SKU-1', 100, 0)");
        jdbcTemplate = new JdbcTemplate(pool);
        jdbcClient = JdbcClient.create(pool);
        transaction = new TransactionTemplate(new DataSourceTransactionManager(pool));
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
    void fenceRaiseCommitsAndRollsBackWithTheJdbcTemplateAndJdbcClientWritesOfItsTransaction(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        store.admitWrite("stock:SKU-1", OLD);

        transaction.executeWithoutResult(status -> {
            store.admitWrite("stock:SKU-1", NEW);
            jdbcTemplate.update("UPDATE " + stockTable + " SET quantity = 90 WHERE sku = 'SKU-1'");
            FencedUpdate.table(stockTable)
                    .set("quantity", 80)
                    .where("sku", "SKU-1")
                    .execute(jdbcClient, NEW);
            status.setRollbackOnly();
        });
        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest))
                .as("rolled back with the transaction")
                .contains(OLD.token());
        assertThat(quantity()).isEqualTo(100);

        transaction.executeWithoutResult(status -> {
            store.admitWrite("stock:SKU-1", NEW);
            FencedUpdate.table(stockTable)
                    .set("quantity", 80)
                    .where("sku", "SKU-1")
                    .execute(jdbcTemplate, NEW);
        });
        assertThat(store.fenceOf("stock:SKU-1").map(Fence::highest)).contains(NEW.token());
        assertThat(quantity()).isEqualTo(80);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void staleTokenMarksTheTransactionRollbackOnlyEvenWhenTheCallerCatchesIt(FenceDatabase database) {
        JdbcFenceStore store = store(database);
        store.admitWrite("stock:SKU-1", NEW);

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                    jdbcTemplate.update("UPDATE " + stockTable + " SET quantity = 1 WHERE sku = 'SKU-1'");
                    try {
                        store.admitWrite("stock:SKU-1", OLD);
                    } catch (StaleTokenException e) {
                        // swallowed by a careless caller: the transaction must still not commit
                    }
                }))
                .isInstanceOf(UnexpectedRollbackException.class);
        assertThat(quantity()).isEqualTo(100);
    }

    @ParameterizedTest
    @EnumSource(FenceDatabase.class)
    void columnFormRefusesALowerTokenAndTellsNoSuchRowApart(FenceDatabase database) {
        store(database);
        FencedUpdate stock = FencedUpdate.table(stockTable).set("quantity", 70);

        assertThat(stock.where("sku", "SKU-1").execute(jdbcTemplate, NEW)).isEqualTo(1);
        assertThat(stock.where("sku", "SKU-1").execute(jdbcTemplate, NEW))
                .as("the same hold writes again")
                .isEqualTo(1);
        assertThatThrownBy(() -> stock.set("quantity", 60).where("sku", "SKU-1").execute(jdbcClient, OLD))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo(stockTable + "[sku=SKU-1]");
                    assertThat(e.highest()).isEqualTo(NEW.token());
                    assertThat(e.refused()).isEqualTo(OLD.token());
                });
        assertThat(stock.where("sku", "SKU-404").execute(jdbcTemplate, NEW))
                .as("no such row: nothing written, nothing refused")
                .isZero();
        assertThat(quantity()).isEqualTo(70);
        assertThat(jdbcTemplate.queryForObject(
                        "SELECT last_token FROM " + stockTable + " WHERE sku = 'SKU-1'", Long.class))
                .isEqualTo(20L);
    }

    private int quantity() {
        return jdbcTemplate.queryForObject(
                "SELECT quantity FROM " + stockTable + " WHERE sku = 'SKU-1'", Integer.class);
    }
}
