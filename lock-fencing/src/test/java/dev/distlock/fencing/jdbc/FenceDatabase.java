package dev.distlock.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.JdbcServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The databases the fence store is tested on: H2 in-process, PostgreSQL and MariaDB on loopback. */
enum FenceDatabase {
    H2(JdbcServer.h2("fencing")),
    POSTGRESQL(JdbcServer.POSTGRESQL),
    MARIADB(JdbcServer.MARIADB);

    final String server;
    final String url;
    final String user;
    final String password;
    private final JdbcServer jdbc;

    FenceDatabase(JdbcServer jdbc) {
        this.jdbc = jdbc;
        this.server = jdbc.name();
        this.url = jdbc.url();
        this.user = jdbc.user();
        this.password = jdbc.password();
    }

    /** Skips the test (fails it with CI=true) when the server cannot be reached. */
    void require() {
        jdbc.require();
    }

    HikariDataSource pool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    /** A table name no other test run uses. */
    static String uniqueTableName(String purpose) {
        return JdbcServer.uniqueName("fence_" + purpose);
    }

    static void execute(DataSource dataSource, String... statements) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not run " + String.join("; ", statements), e);
        }
    }

    static void dropTables(DataSource dataSource, String... tables) {
        for (String table : tables) {
            execute(dataSource, "DROP TABLE IF EXISTS " + table);
        }
    }
}
