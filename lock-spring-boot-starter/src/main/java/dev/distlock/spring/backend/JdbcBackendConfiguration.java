package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.JdbcLockProperties;
import dev.distlock.spring.JdbcLockProperties.SchemaInitialization;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The JDBC backend over the application's {@link DataSource}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLockBackend(LockBackendType.JDBC)
class JdbcBackendConfiguration {

    /** JDBC URL prefixes of databases that live in this JVM's memory. */
    private static final List<String> IN_MEMORY_URLS =
            List.of("jdbc:h2:mem:", "jdbc:hsqldb:mem:", "jdbc:derby:memory:");

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    JdbcLockRegistry lockRegistry(DistributedLockProperties properties, ObjectProvider<DataSource> dataSources) {
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource == null) {
            throw new LockStartupException(
                    "distributed-lock.backend=jdbc needs one DataSource bean, and there is "
                            + (dataSources.stream().findAny().isPresent() ? "more than one" : "none") + ".",
                    "Add spring-boot-starter-jdbc and a JDBC driver and set spring.datasource.url, mark one"
                            + " DataSource @Primary, or choose another distributed-lock.backend.");
        }
        JdbcLockProperties jdbc = properties.getJdbc();
        JdbcLockRegistry.Builder builder = JdbcLockRegistry.builder(dataSource)
                .tableName(PropertyChecks.notBlank("jdbc.table-name", jdbc.getTableName()))
                .initializeSchema(initializeSchema(jdbc.getInitializeSchema(), dataSource))
                .options(PropertyChecks.registryOptions(properties));
        return LockBackendStartup.build(LockBackendType.JDBC, builder::build);
    }

    static boolean initializeSchema(SchemaInitialization mode, DataSource dataSource) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> isInMemory(dataSource);
        };
    }

    /**
     * Whether the DataSource's database lives in this JVM's memory. A database that cannot be reached now is not, so
     * the registry can be built while it is down.
     */
    private static boolean isInMemory(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            String url = connection.getMetaData().getURL();
            String lower = url == null ? "" : url.toLowerCase(Locale.ROOT);
            return IN_MEMORY_URLS.stream().anyMatch(lower::startsWith);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }
}
