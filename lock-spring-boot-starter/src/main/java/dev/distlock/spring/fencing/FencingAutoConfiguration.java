package dev.distlock.spring.fencing;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.fencing.jdbc.JdbcFenceStore;
import dev.distlock.spring.JdbcLockProperties.SchemaInitialization;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * The resource side of fencing, with {@link Fenced} methods, the SQL fence store and stale-token answers. It runs
 * after the transaction auto-configuration, so the fence advisor runs inside the transaction. Selects no lock backend.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            "dev.distlock.spring.DistributedLockAutoConfiguration"
        })
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingAutoConfiguration {

    /** JDBC URL prefixes of databases that live in this JVM's memory. */
    private static final String[] IN_MEMORY_URLS = {"jdbc:h2:mem:", "jdbc:hsqldb:mem:", "jdbc:derby:memory:"};

    @Bean
    @ConditionalOnMissingBean
    FencingClaims distributedLockFencingClaims(ObjectProvider<LockRegistry> registries) {
        return new FencingClaims(registries);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static FencedMethodAdvisor distributedLockFencedMethodAdvisor(BeanFactory beanFactory) {
        // Registries and stores are looked up on first use, so the advisor, created early, pulls in none.
        FencingClaims claims = new FencingClaims(beanFactory.getBeanProvider(LockRegistry.class));
        return new FencedMethodAdvisor(
                new FencedMethodInterceptor(new FencedMethods(beanFactory), claims, beanFactory));
    }

    @Bean
    @ConditionalOnMissingBean
    static StaleTokenExceptionTranslator distributedLockStaleTokenExceptionTranslator() {
        return new StaleTokenExceptionTranslator();
    }

    /** The SQL fence store, when there is one DataSource. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DataSourceUtils")
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(
            prefix = FencingProperties.PREFIX + ".jdbc",
            name = "enabled",
            havingValue = "true",
            matchIfMissing = true)
    static class JdbcFenceStoreConfiguration {

        @Bean
        @ConditionalOnMissingBean(FenceStore.class)
        JdbcFenceStore distributedLockFenceStore(FencingProperties properties, ObjectProvider<DataSource> dataSources) {
            DataSource dataSource = dataSources.getIfUnique();
            if (dataSource == null) {
                throw new IllegalStateException("The SQL fence store needs one DataSource, and there are several:"
                        + " mark one @Primary, declare your own FenceStore bean, or set "
                        + FencingProperties.PREFIX + ".jdbc.enabled=false.");
            }
            FencingProperties.Jdbc jdbc = properties.getJdbc();
            return JdbcFenceStore.builder(dataSource)
                    .tableName(jdbc.getTableName())
                    .initializeSchema(initializeSchema(jdbc.getInitializeSchema(), dataSource))
                    .timeout(jdbc.getTimeout())
                    .build();
        }

        private static boolean initializeSchema(SchemaInitialization mode, DataSource dataSource) {
            return switch (mode) {
                case ALWAYS -> true;
                case NEVER -> false;
                case EMBEDDED -> isInMemory(dataSource);
            };
        }

        /** Whether the database lives in this JVM's memory. One that cannot be reached now is not. */
        private static boolean isInMemory(DataSource dataSource) {
            try (Connection connection = dataSource.getConnection()) {
                String url = connection.getMetaData().getURL();
                String lower = url == null ? "" : url.toLowerCase(Locale.ROOT);
                for (String prefix : IN_MEMORY_URLS) {
                    if (lower.startsWith(prefix)) {
                        return true;
                    }
                }
                return false;
            } catch (SQLException | RuntimeException e) {
                return false;
            }
        }
    }

    /** {@code 409 Conflict} problem details for stale tokens in Spring MVC and WebFlux. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
    @ConditionalOnWebApplication
    @ConditionalOnProperty(
            prefix = "distributed-lock.web",
            name = "problem-details",
            havingValue = "true",
            matchIfMissing = true)
    static class ProblemDetails {

        @Bean
        @ConditionalOnMissingBean
        StaleTokenProblemHandler distributedLockStaleTokenProblemHandler() {
            return new StaleTokenProblemHandler();
        }
    }
}
