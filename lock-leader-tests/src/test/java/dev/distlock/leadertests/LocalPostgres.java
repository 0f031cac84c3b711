package dev.distlock.leadertests;

import dev.distlock.contract.servers.JdbcServer;
import java.util.List;

/** A lock table of its own per test class on the local PostgreSQL server ({@link JdbcServer#POSTGRESQL}). */
final class LocalPostgres {

    private static final JdbcServer SERVER = JdbcServer.POSTGRESQL;

    private final String table = JdbcServer.uniqueName("distlock_leader");

    /** Fails (or skips, outside CI) when the server cannot be reached. */
    LocalPostgres() {
        SERVER.require();
    }

    /** The backend words of {@link BackendClients}. */
    List<String> spec() {
        return List.of("postgresql", SERVER.url(), SERVER.user(), SERVER.password(), table);
    }

    void dropTable() {
        SERVER.execute("DROP TABLE IF EXISTS " + table);
    }
}
