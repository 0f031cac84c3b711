package dev.distlock.leadertests;

import dev.distlock.contract.servers.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresLeadershipIT extends LeadershipKit {

    private static final String URL =
            env("DISTLOCK_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?connectTimeout=3");
    private static final String USER = env("DISTLOCK_POSTGRES_USER", "postgres");
    private static final String PASSWORD = env("DISTLOCK_POSTGRES_PASSWORD", "");
    private static final String TABLE =
            "distlock_leader_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    @BeforeAll
    static void requirePostgres() {
        String reason = null;
        try (Connection ignored = DriverManager.getConnection(URL, USER, PASSWORD)) {
            // reachable
        } catch (SQLException e) {
            reason = e.getMessage();
        }
        RequiredServer.require(reason == null, "PostgreSQL at " + URL, "cannot connect: " + reason);
    }

    @AfterAll
    static void dropTable() throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    @Override
    protected BackendClients newClients() {
        return new BackendClients(List.of("postgresql", URL, USER, PASSWORD, TABLE), Duration.ofSeconds(2));
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
