package dev.distlock.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RequiredServer;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.fencing.jdbc.JdbcFenceStore;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * The common case: locks on Redis, data in PostgreSQL. The SQL fence store is configured over the
 * DataSource without changing the lock backend the starter picks, and a holder paused past its
 * Redis lease is refused by the fence row in PostgreSQL.
 */
class RedisLockPostgresFencingIT {

    private static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static RedisServers redis;
    private static ManagedProcess server;

    private final String stockTable =
            "fenced_stock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String fenceTable =
            "fence_redis_pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    @BeforeAll
    static void startRedis() {
        redis = new RedisServers();
        server = redis.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void dropTables() throws Exception {
        if (ManagedProcess.accepts(5432)) {
            try (Connection connection = DriverManager.getConnection(POSTGRES_URL, "postgres", "");
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + stockTable);
                statement.execute("DROP TABLE IF EXISTS " + fenceTable);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Application {

        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource(POSTGRES_URL, "postgres", "");
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        RedisConnectionFactory redisConnectionFactory() {
            return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
        }
    }

    private ApplicationContextRunner runner(Class<?>... autoConfigurations) {
        RequiredServer.require(ManagedProcess.accepts(5432), "PostgreSQL", "nothing listens on 127.0.0.1:5432");
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(autoConfigurations))
                // Redis is the only lock backend on this application's classpath.
                .withClassLoader(
                        new FilteredClassLoader("dev.distlock.jdbc.", "dev.distlock.zookeeper.", "dev.distlock.etcd."))
                .withUserConfiguration(Application.class)
                .withPropertyValues("distributed-lock.fencing.jdbc.table-name=" + fenceTable, "test.lease-time=500ms");
    }

    @Test
    void sqlFenceStoreOverThePostgresDataSourceLeavesRedisAsTheLockBackend() {
        runner(DistributedLockAutoConfiguration.class)
                .run(context -> assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class));
        runner(DistributedLockAutoConfiguration.class, FencingAutoConfiguration.class)
                .run(context -> {
                    assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class);
                    assertThat(context.getBean(FenceStore.class)).isInstanceOf(JdbcFenceStore.class);
                });
    }

    @Test
    void holderPausedPastItsRedisLeaseIsRefusedByTheFenceRowInPostgres() {
        runner(DistributedLockAutoConfiguration.class, FencingAutoConfiguration.class)
                .withUserConfiguration(Writers.class)
                .withPropertyValues("test.stock-table=" + stockTable)
                .run(context -> {
                    Throwable stale = FencedMethodTest.pausedHolderThenNextHolder(context, true);
                    assertThat(stale).isInstanceOf(StaleFencingTokenException.class);
                    assertThat(context.getBean(FencedStock.Stock.class).quantity("SKU-1"))
                            .isEqualTo(97);
                    assertThat(context.getBean(FenceStore.class)
                                    .fenceOf("stock:SKU-1")
                                    .orElseThrow()
                                    .backend())
                            .isEqualTo("redis");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Writers {

        @Bean
        FencedStock.Stock stock(DataSource dataSource, org.springframework.core.env.Environment environment) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            String table = environment.getRequiredProperty("test.stock-table");
            jdbc.execute(FencedStock.DDL.formatted(table));
            return new FencedStock.Stock(jdbc, table);
        }

        @Bean
        FencedStock.Orders orders(FencedStock.Stock stock) {
            return new FencedStock.Orders(stock);
        }
    }
}
