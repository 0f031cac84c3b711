package dev.distlock.jdbc;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Properties;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Connections opened through the JDBC driver with the settings of the application's DataSource,
 * for PostgreSQL's listener, which would otherwise take a pooled connection for good.
 */
final class DirectConnections {

    private DirectConnections() {}

    /**
     * A DataSource that opens connections of its own with {@code dataSource}'s URL, user, password
     * and driver properties. Empty when its public getters do not say them.
     */
    static Optional<DataSource> like(DataSource dataSource) {
        DataSource target = dataSource;
        while (target instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
            target = delegating.getTargetDataSource();
        }
        if (!(get(target, "getJdbcUrl", "getUrl", "getURL") instanceof String url) || url.isBlank()) {
            return Optional.empty();
        }
        DriverManagerDataSource direct = new DriverManagerDataSource(url);
        if (get(target, "getDataSourceProperties") instanceof Properties properties) {
            Properties copy = new Properties();
            copy.putAll(properties);
            direct.setConnectionProperties(copy);
        }
        if (get(target, "getUsername", "getUser") instanceof String user) {
            direct.setUsername(user);
        }
        if (get(target, "getPassword") instanceof String password) {
            direct.setPassword(password);
        }
        return Optional.of(direct);
    }

    /** The value of the first of {@code getters} that {@code target} has publicly, or null. */
    private static Object get(Object target, String... getters) {
        for (String getter : getters) {
            try {
                Method method = target.getClass().getMethod(getter);
                Object value = method.invoke(target);
                if (value != null) {
                    return value;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // not this getter
            }
        }
        return null;
    }
}
