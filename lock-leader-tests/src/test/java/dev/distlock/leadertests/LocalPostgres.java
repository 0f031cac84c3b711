package dev.distlock.leadertests;

import dev.distlock.contract.servers.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/**
 * The local PostgreSQL server that the test script ensures ({@code DISTLOCK_POSTGRES_URL}, {@code _USER} and {@code
 * _PASSWORD} override where it is), with a lock table of its own per test class.
 */
final class LocalPostgres {

    private static final String URL =
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3");
    private static final String USER = env("DISTLOCK_POSTGRES_USER", "postgres");
    private static final String PASSWORD = env("DISTLOCK_POSTGRES_PASSWORD", "");

    private final String table =
            "distlock_leader_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    /** Fails (or skips, outside CI) when the server cannot be reached. */
    LocalPostgres() {
        String reason = null;
        try (Connection ignored = DriverManager.getConnection(URL, USER, PASSWORD)) {
            // reachable
        } catch (SQLException e) {
            reason = e.getMessage();
        }
        RequiredServer.require(reason == null, "PostgreSQL at " + URL, "cannot connect: " + reason);
    }

    /** The backend words of {@link BackendClients}. */
    List<String> spec() {
        return List.of("postgresql", URL, USER, PASSWORD, table);
    }

    void dropTable() throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
