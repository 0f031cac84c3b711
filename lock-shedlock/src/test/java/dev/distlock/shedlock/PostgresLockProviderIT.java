package dev.distlock.shedlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.RequiredServer;
import dev.distlock.core.LockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresLockProviderIT extends LockProviderKit {

    private static final String URL =
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3");
    private static final String TABLE =
            "distlock_shedlock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private static HikariDataSource dataSource;

    @BeforeAll
    static void connect() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(env("DISTLOCK_POSTGRES_USER", "postgres"));
        config.setPassword(env("DISTLOCK_POSTGRES_PASSWORD", ""));
        config.setMaximumPoolSize(20);
        config.setInitializationFailTimeout(-1);
        dataSource = new HikariDataSource(config);
        String reason = "";
        try (Connection ignored = dataSource.getConnection()) {
            reason = null;
        } catch (SQLException e) {
            reason = e.getMessage();
        }
        RequiredServer.require(reason == null, "PostgreSQL at " + URL, "cannot connect: " + reason);
    }

    @AfterAll
    static void disconnect() throws SQLException {
        if (dataSource != null) {
            try (Connection connection = dataSource.getConnection()) {
                connection.createStatement().execute("DROP TABLE IF EXISTS " + TABLE);
            }
            dataSource.close();
        }
    }

    @Override
    protected LockRegistry newRegistry() {
        return JdbcLockRegistry.builder(dataSource)
                .tableName(TABLE)
                .initializeSchema(true)
                .build();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
