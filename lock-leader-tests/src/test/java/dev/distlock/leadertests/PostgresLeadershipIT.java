package dev.distlock.leadertests;

import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresLeadershipIT extends LeadershipKit {

    private static LocalPostgres server;

    @BeforeAll
    static void requirePostgres() {
        server = new LocalPostgres();
    }

    @AfterAll
    static void dropTable() throws SQLException {
        if (server != null) {
            server.dropTable();
        }
    }

    @Override
    protected BackendClients newClients() {
        return new BackendClients(server.spec(), Duration.ofSeconds(2));
    }
}
