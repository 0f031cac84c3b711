package dev.distlock.shedlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.JdbcServer;
import dev.distlock.core.LockRegistry;
import dev.distlock.jdbc.JdbcLockRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresLockProviderIT extends LockProviderKit {

    private static final JdbcServer POSTGRESQL = JdbcServer.POSTGRESQL;
    private static final String TABLE = JdbcServer.uniqueName("distlock_shedlock");

    private static HikariDataSource dataSource;

    @BeforeAll
    static void connect() {
        POSTGRESQL.require();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(POSTGRESQL.url());
        config.setUsername(POSTGRESQL.user());
        config.setPassword(POSTGRESQL.password());
        config.setMaximumPoolSize(20);
        config.setInitializationFailTimeout(-1);
        dataSource = new HikariDataSource(config);
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
}
