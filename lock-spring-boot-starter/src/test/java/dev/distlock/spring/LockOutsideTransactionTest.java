package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The lock must wrap the transaction: a second owner that reads after the lock is released has
 * to see the first owner's committed write. Events are recorded on a real
 * DataSourceTransactionManager over H2.
 */
class LockOutsideTransactionTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    public static class StockWriter {

        private final JdbcTemplate jdbc;
        private final LockRegistry registry;
        final List<String> events = new CopyOnWriteArrayList<>();

        StockWriter(JdbcTemplate jdbc, LockRegistry registry) {
            this.jdbc = jdbc;
            this.registry = registry;
        }

        @DistributedLock(name = "stock", key = "#sku")
        @Transactional
        public void write(String sku) {
            events.add("in method: transaction active=" + TransactionSynchronizationManager.isActualTransactionActive()
                    + ", lock held=" + lockHeld(sku));
            jdbc.update("insert into stock_write(sku) values (?)", sku);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    events.add("after commit: lock held=" + lockHeld(sku));
                }
            });
        }

        public List<String> events() {
            return events;
        }

        private boolean lockHeld(String sku) {
            return registry.obtain("stock:" + sku).isHeldByCurrentThread();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Database {

        @Bean
        DataSource dataSource() {
            return new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .addScript("classpath:stock-write.sql")
                    .build();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        StockWriter stockWriter(DataSource dataSource, LockRegistry registry) {
            return new StockWriter(new JdbcTemplate(dataSource), registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class DefaultTransactionOrder {}

    /** What an application would get if the lock ran inside the transaction. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
    static class TransactionOutsideTheLock {}

    @Test
    void lockIsReleasedOnlyAfterTheCommit() {
        runner.withUserConfiguration(Database.class, DefaultTransactionOrder.class)
                .run(context -> {
                    StockWriter writer = context.getBean(StockWriter.class);
                    writer.write("A-1");
                    assertThat(writer.events())
                            .containsExactly(
                                    "in method: transaction active=true, lock held=true",
                                    "after commit: lock held=true");
                });
    }

    @Test
    void aTransactionOrderedOutsideTheLockWouldCommitAfterTheRelease() {
        runner.withUserConfiguration(Database.class, TransactionOutsideTheLock.class)
                .run(context -> {
                    StockWriter writer = context.getBean(StockWriter.class);
                    writer.write("A-1");
                    assertThat(writer.events())
                            .containsExactly(
                                    "in method: transaction active=true, lock held=true",
                                    "after commit: lock held=false");
                });
    }
}
