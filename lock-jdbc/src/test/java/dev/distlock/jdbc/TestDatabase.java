package dev.distlock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.JdbcServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The databases the tests run against: H2 in-process, PostgreSQL and MariaDB on loopback (see {@link JdbcServer}). */
enum TestDatabase {
    H2(JdbcServer.h2("distlock"), "SET TIME ZONE '%s'"),
    POSTGRESQL(JdbcServer.POSTGRESQL, "SET TIME ZONE '%s'"),
    MARIADB(JdbcServer.MARIADB, "SET time_zone = '%s'");

    final String server;
    final String url;
    final String user;
    final String password;
    private final JdbcServer jdbc;
    private final String setTimeZone;

    TestDatabase(JdbcServer jdbc, String setTimeZone) {
        this.jdbc = jdbc;
        this.server = jdbc.name();
        this.url = jdbc.url();
        this.user = jdbc.user();
        this.password = jdbc.password();
        this.setTimeZone = setTimeZone;
    }

    /** Skips the test (fails it with CI=true) when the server cannot be reached. */
    void require() {
        jdbc.require();
    }

    /** The registry with its lock table set up (created, when it was built to), as the start-up check does. */
    static JdbcLockRegistry created(JdbcLockRegistry registry) {
        registry.verify(Duration.ofSeconds(30));
        return registry;
    }

    /** A table name no other test run uses. */
    static String uniqueTableName(String purpose) {
        return JdbcServer.uniqueName("distlock_" + purpose);
    }

    HikariDataSource pool(String name, int size) {
        return pool(name, size, null, true);
    }

    /**
     * A connection pool; {@code timeZone} (an offset like +09:00) sets the session time zone of
     * each connection, standing for an application server configured for another zone.
     */
    HikariDataSource pool(String name, int size, String timeZone, boolean autoCommit) {
        return pool(name, size, timeZone, autoCommit, Duration.ofSeconds(5));
    }

    /** A pool whose {@code getConnection()} gives up after {@code connectionTimeout}. */
    HikariDataSource pool(String name, int size, String timeZone, boolean autoCommit, Duration connectionTimeout) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        config.setAutoCommit(autoCommit);
        if (timeZone != null) {
            config.setConnectionInitSql(String.format(setTimeZone, timeZone));
        }
        return new HikariDataSource(config);
    }

    /**
     * A pool whose connections go to {@code port} on loopback instead, with {@code urlProperty}
     * (name=value) added to the URL when not null.
     */
    HikariDataSource poolThrough(String name, int port, String urlProperty) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        String proxied = jdbc.urlThrough(port);
        if (urlProperty != null) {
            proxied += (proxied.contains("?") ? "&" : "?") + urlProperty;
        }
        config.setJdbcUrl(proxied);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
        return new HikariDataSource(config);
    }

    /**
     * A pool through {@code port} on loopback, as Spring Boot builds one: it starts on its first
     * {@code getConnection()}, which gives up after {@code connectionTimeout} while the database
     * cannot be reached.
     */
    HikariDataSource lazyPoolThrough(String name, int port, Duration connectionTimeout) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName(name);
        pool.setJdbcUrl(jdbc.urlThrough(port));
        pool.setUsername(user);
        pool.setPassword(password);
        pool.setMaximumPoolSize(2);
        pool.setMinimumIdle(1);
        pool.setConnectionTimeout(connectionTimeout.toMillis());
        return pool;
    }

    /** The server's host, from the URL. */
    String host() {
        return jdbc.host();
    }

    /** The server's port, from the URL. */
    int port() {
        return jdbc.port();
    }

    void dropTable(javax.sql.DataSource dataSource, String table) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop test table " + table, e);
        }
    }

    /** The URL up to the host (or H2's database name), as drivers report it back in metadata. */
    String hostPart() {
        Matcher matcher = Pattern.compile("^jdbc:[a-z0-9]+:(//[^:/?;]+|[^;?]+)").matcher(url);
        return matcher.find() ? matcher.group() : url;
    }
}
