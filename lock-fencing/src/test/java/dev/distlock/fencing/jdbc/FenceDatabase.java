package dev.distlock.fencing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;

/** The databases the fence store is tested on: H2 in-process, PostgreSQL and MariaDB on loopback. */
enum FenceDatabase {
    H2("H2", "jdbc:h2:mem:fencing;DB_CLOSE_DELAY=-1", "sa", ""),
    POSTGRESQL(
            "PostgreSQL",
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3"),
            env("DISTLOCK_POSTGRES_USER", "postgres"),
            env("DISTLOCK_POSTGRES_PASSWORD", "")),
    MARIADB(
            "MariaDB",
            env("DISTLOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=3000"),
            env("DISTLOCK_MARIADB_USER", "root"),
            env("DISTLOCK_MARIADB_PASSWORD", ""));

    final String server;
    final String url;
    final String user;
    final String password;
    private Boolean available;
    private String reason;

    FenceDatabase(String server, String url, String user, String password) {
        this.server = server;
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Skips the test (fails it with CI=true) when the server cannot be reached. */
    synchronized void require() {
        if (available == null) {
            Properties credentials = new Properties();
            credentials.setProperty("user", user);
            credentials.setProperty("password", password);
            try (Connection ignored = DriverManager.getConnection(url, credentials)) {
                available = true;
            } catch (SQLException e) {
                available = false;
                reason = e.getMessage();
            }
        }
        RequiredServer.require(available, server + " at " + url, "cannot connect: " + reason);
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
        return "fence_" + purpose + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
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

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
