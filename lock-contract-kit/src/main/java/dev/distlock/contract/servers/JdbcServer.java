package dev.distlock.contract.servers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database the tests reach over JDBC: PostgreSQL and MariaDB on loopback as the test script starts them (the
 * {@code DISTLOCK_POSTGRES_*} and {@code DISTLOCK_MARIADB_*} variables say where else), or H2 in-process. The driver
 * comes from the test class path of the module that uses it.
 */
public record JdbcServer(String name, String url, String user, String password) {

    /** PostgreSQL at {@code DISTLOCK_POSTGRES_URL}, {@code _USER}, {@code _PASSWORD}, or on 127.0.0.1:5432. */
    public static final JdbcServer POSTGRESQL = new JdbcServer(
            "PostgreSQL",
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3"),
            env("DISTLOCK_POSTGRES_USER", "postgres"),
            env("DISTLOCK_POSTGRES_PASSWORD", ""));

    /** MariaDB at {@code DISTLOCK_MARIADB_URL}, {@code _USER}, {@code _PASSWORD}, or on 127.0.0.1:3306. */
    public static final JdbcServer MARIADB = new JdbcServer(
            "MariaDB",
            env("DISTLOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=3000"),
            env("DISTLOCK_MARIADB_USER", "root"),
            env("DISTLOCK_MARIADB_PASSWORD", ""));

    private static final Pattern HOST_PORT = Pattern.compile("//([^:/?;]+):(\\d+)");
    private static final Map<String, Optional<String>> FAILURES = new ConcurrentHashMap<>();

    /** An H2 database in this JVM, kept while the JVM runs. */
    public static JdbcServer h2(String database) {
        return new JdbcServer("H2", "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1", "sa", "");
    }

    /** A table (or other) name no other test run uses: {@code prefix_} and ten random hex digits. */
    public static String uniqueName(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    /** Fails (CI) or skips the calling test when the server cannot be reached. Asks once per URL. */
    public void require() {
        Optional<String> failure = FAILURES.computeIfAbsent(url, ignored -> connectFailure());
        RequiredServer.require(failure.isEmpty(), name + " at " + url, "cannot connect: " + failure.orElse(null));
    }

    /** A new connection. The caller closes it. */
    public Connection connect() throws SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", user);
        credentials.setProperty("password", password);
        return DriverManager.getConnection(url, credentials);
    }

    /** Runs {@code statements} on a connection of its own. */
    public void execute(String... statements) {
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not run " + String.join("; ", statements) + " on " + name, e);
        }
    }

    /** The server's host, from the URL. */
    public String host() {
        return hostAndPort().group(1);
    }

    /** The server's port, from the URL. */
    public int port() {
        return Integer.parseInt(hostAndPort().group(2));
    }

    /** The URL with its host and port replaced by {@code port} on loopback, as through a {@link FaultProxy}. */
    public String urlThrough(int port) {
        return HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + port);
    }

    private Matcher hostAndPort() {
        Matcher matcher = HOST_PORT.matcher(url);
        if (!matcher.find()) {
            throw new IllegalStateException(name + " URL has no //host:port: " + url);
        }
        return matcher;
    }

    private Optional<String> connectFailure() {
        try (Connection ignored = connect()) {
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
