package dev.distlock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The databases the tests run against: H2 in-process, PostgreSQL and MariaDB on loopback (or where env vars say). */
enum TestDatabase {
    H2("H2", "jdbc:h2:mem:distlock;DB_CLOSE_DELAY=-1", "sa", "", "SET TIME ZONE '%s'"),
    POSTGRESQL(
            "PostgreSQL",
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3"),
            env("DISTLOCK_POSTGRES_USER", "postgres"),
            env("DISTLOCK_POSTGRES_PASSWORD", ""),
            "SET TIME ZONE '%s'"),
    MARIADB(
            "MariaDB",
            env("DISTLOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=3000"),
            env("DISTLOCK_MARIADB_USER", "root"),
            env("DISTLOCK_MARIADB_PASSWORD", ""),
            "SET time_zone = '%s'");

    private static final Pattern HOST_PORT = Pattern.compile("//([^:/?;]+):(\\d+)");

    final String server;
    final String url;
    final String user;
    final String password;
    private final String setTimeZone;
    private Boolean available;
    private String reason;

    TestDatabase(String server, String url, String user, String password, String setTimeZone) {
        this.server = server;
        this.url = url;
        this.user = user;
        this.password = password;
        this.setTimeZone = setTimeZone;
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

    /** The registry with its lock table set up (created, when it was built to), as the start-up check does. */
    static JdbcLockRegistry created(JdbcLockRegistry registry) {
        registry.verify(Duration.ofSeconds(30));
        return registry;
    }

    /** A table name no other test run uses. */
    static String uniqueTableName(String purpose) {
        return "distlock_" + purpose + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
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
        String proxied = HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + port);
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
        pool.setJdbcUrl(HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + port));
        pool.setUsername(user);
        pool.setPassword(password);
        pool.setMaximumPoolSize(2);
        pool.setMinimumIdle(1);
        pool.setConnectionTimeout(connectionTimeout.toMillis());
        return pool;
    }

    /** The server's host, from the URL. */
    String host() {
        return hostAndPort().group(1);
    }

    /** The server's port, from the URL. */
    int port() {
        return Integer.parseInt(hostAndPort().group(2));
    }

    private Matcher hostAndPort() {
        Matcher matcher = HOST_PORT.matcher(url);
        if (!matcher.find()) {
            throw new IllegalStateException(server + " URL has no //host:port: " + url);
        }
        return matcher;
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

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
