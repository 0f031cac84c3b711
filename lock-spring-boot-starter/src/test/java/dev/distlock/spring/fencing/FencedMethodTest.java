package dev.distlock.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.Fence;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.fencing.jdbc.JdbcFenceStore;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * {@link Fenced} methods on the memory lock backend and an H2 database: the check runs with the
 * hold's token inside the method's transaction, and a holder whose lease ran out while paused is
 * refused before its body runs; without the check (the control) its write lands on top of the next
 * holder's.
 */
class FencedMethodTest {

    static final String TABLE = "fenced_stock";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistributedLockAutoConfiguration.class, FencingAutoConfiguration.class))
            .withUserConfiguration(Database.class, Beans.class)
            .withPropertyValues("distributed-lock.backend=memory");

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Database {

        @Bean
        DataSource dataSource() {
            return new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .build();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        FencedStock.Stock stock(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute(FencedStock.DDL.formatted(TABLE));
            return new FencedStock.Stock(jdbc, TABLE);
        }

        @Bean
        FencedStock.Orders orders(FencedStock.Stock stock) {
            return new FencedStock.Orders(stock);
        }
    }

    @Test
    void theSqlFenceStoreIsConfiguredOverTheDataSourceWithoutChangingTheLockBackend() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(JdbcFenceStore.class);
            assertThat(context.getBean(LockRegistry.class).backend()).isEqualTo("memory");
        });
    }

    @Test
    void fenceIsRaisedToTheHoldsTokenInTheMethodsTransaction() {
        runner.run(context -> {
            FencedStock.Stock stock = context.getBean(FencedStock.Stock.class);
            stock.restock("SKU-1", 100);
            assertThat(context.getBean(FencedStock.Orders.class).buyNow("SKU-1", 2))
                    .isEqualTo(98);

            Fence fence =
                    context.getBean(FenceStore.class).fenceOf("stock:SKU-1").orElseThrow();
            assertThat(fence.lockKey()).isEqualTo("stock:SKU-1");
            assertThat(fence.backend()).isEqualTo("memory");
        });
    }

    @Test
    void holderWhoseLeaseRanOutWhilePausedIsRefusedBeforeItsBodyRuns() {
        runner.withPropertyValues("test.lease-time=300ms").run(context -> {
            assertThat(pausedHolderThenNextHolder(context, true))
                    .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                        assertThat(e).isInstanceOf(OptimisticLockingFailureException.class);
                        assertThat(e.getCause()).isInstanceOf(StaleTokenException.class);
                        assertThat(e.resource()).isEqualTo("stock:SKU-1");
                        assertThat(e.highest().isNewerThan(e.refused())).isTrue();
                    });
            assertThat(context.getBean(FencedStock.Stock.class).quantity("SKU-1"))
                    .as("only the next holder's purchase of 3")
                    .isEqualTo(97);
        });
    }

    @Test
    void controlWithoutTheFenceLetsThePausedHoldersWriteLand() {
        runner.withPropertyValues("test.lease-time=300ms").run(context -> {
            assertThat(pausedHolderThenNextHolder(context, false)).isNull();
            assertThat(context.getBean(FencedStock.Stock.class).quantity("SKU-1"))
                    .as("the paused holder wrote after its lease ended")
                    .isEqualTo(95);
        });
    }

    @Test
    void asyncAndReactiveLockedMethodsCarryTheTokenToTheCheck() {
        runner.run(context -> {
            FencedStock.Orders orders = context.getBean(FencedStock.Orders.class);
            FenceStore store = context.getBean(FenceStore.class);

            assertThat(orders.buyAsync("SKU-A").get(30, TimeUnit.SECONDS)).isEqualTo("bought SKU-A");
            FencingToken asyncToken = store.fenceOf("stock:SKU-A").orElseThrow().highest();
            assertThat(orders.buyReactive("SKU-R").block(Duration.ofSeconds(30)))
                    .isEqualTo("bought SKU-R");
            FencingToken reactiveToken =
                    store.fenceOf("stock:SKU-R").orElseThrow().highest();

            // A newer holder registered with the resources: the next calls' tokens are now below it.
            store.rebind("stock:SKU-A", new FencingClaim("memory", "stock:SKU-A", FencingToken.of(Long.MAX_VALUE)));
            store.rebind("stock:SKU-R", new FencingClaim("memory", "stock:SKU-R", FencingToken.of(Long.MAX_VALUE)));
            assertThatThrownBy(() -> orders.buyAsync("SKU-A").get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(StaleFencingTokenException.class);
            assertThatThrownBy(() -> orders.buyReactive("SKU-R").block(Duration.ofSeconds(30)))
                    .isInstanceOf(StaleFencingTokenException.class);
            assertThat(asyncToken).isNotNull();
            assertThat(reactiveToken).isNotNull();
        });
    }

    @Test
    void aMultiKeyHoldHasNoOneTokenForFencedButTheSkusOwnLockJoinsIt() {
        runner.run(context -> {
            FencedStock.Stock stock = context.getBean(FencedStock.Stock.class);
            FencedStock.Orders orders = context.getBean(FencedStock.Orders.class);
            stock.restock("SKU-1", 10);
            assertThatThrownBy(() -> orders.move("SKU-1", "SKU-2", 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Stock.take()")
                    .hasMessageContaining("several keys [stock:SKU-1, stock:SKU-2]");
            assertThat(stock.quantity("SKU-1")).isEqualTo(10);

            assertThat(orders.moveThroughTheSkusLock("SKU-1", "SKU-2", 1)).isEqualTo(9);
            Fence fence =
                    context.getBean(FenceStore.class).fenceOf("stock:SKU-1").orElseThrow();
            assertThat(fence.lockKey()).isEqualTo("stock:SKU-1");
        });
    }

    @Test
    void fencedMethodCalledWithoutAHoldFailsWithAClearMessage() {
        runner.run(context -> assertThatThrownBy(
                        () -> context.getBean(FencedStock.Stock.class).take("SKU-1", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Stock.take()")
                .hasMessageContaining("without a distlock hold"));
    }

    /**
     * A holder takes the SKU's lock (300 ms fixed lease) and pauses; after its lease ran out the next
     * holder buys 3; then the paused one resumes and buys 2. Returns the paused holder's failure.
     */
    static Throwable pausedHolderThenNextHolder(ApplicationContext context, boolean fenced) throws Exception {
        FencedStock.Orders orders = context.getBean(FencedStock.Orders.class);
        context.getBean(FencedStock.Stock.class).restock("SKU-1", 100);
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        CompletableFuture<Integer> stale = CompletableFuture.supplyAsync(() -> {
            try {
                return orders.buy("SKU-1", 2, fenced, paused, resume);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
        CountDownLatch ignored = new CountDownLatch(0);
        // Waits for the paused holder's lease to end, then buys.
        assertThat(orders.buy("SKU-1", 3, fenced, new CountDownLatch(1), ignored))
                .isEqualTo(97);
        resume.countDown();
        try {
            stale.get(60, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
