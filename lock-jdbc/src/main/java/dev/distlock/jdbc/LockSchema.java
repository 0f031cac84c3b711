package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Checks that the lock table is there and usable, and creates it from the dialect's DDL when asked. */
final class LockSchema {

    private static final Logger log = LoggerFactory.getLogger(LockSchema.class);

    private final LockDatabase db;

    LockSchema(LockDatabase db) {
        this.db = db;
    }

    /** On first use, creates a missing table with {@code create}, or else fails with the DDL to run. */
    void check(boolean create, String key, CallTimeout timeout) {
        SQLException missing = probe(key, timeout);
        if (missing == null) {
            return;
        }
        if (!create) {
            throw new LockBackendException(JdbcLockBackend.NAME, db.address, key, missingTable(missing), missing);
        }
        create(db, new TableDdl("lock table", db.table.toString(), script()), key, timeout, () -> probe(key, timeout));
    }

    /**
     * Runs the table's DDL. A failure counts only when the table is still not usable afterwards, as
     * instances started together may race on the catalog.
     *
     * @param usable null when the table can be read, else why not
     */
    static void create(
            LockDatabase db, TableDdl table, String key, CallTimeout timeout, Supplier<SQLException> usable) {
        SQLException failed = null;
        try {
            db.transaction(timeout, connection -> {
                db.dialect.createTable(connection, table.name(), table.ddl(), timeout);
                return null;
            });
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw db.failure(key, e); // the database, not the table
            }
            failed = e;
        }
        SQLException stillMissing = usable.get();
        if (stillMissing == null) {
            if (failed != null) {
                log.debug(
                        "Creating the {} '{}' in {} failed, but another instance created it",
                        table.kind(),
                        table.name(),
                        db.address,
                        failed);
            }
            return;
        }
        SQLException reason = failed != null ? failed : stillMissing;
        if (failed != null) {
            reason.addSuppressed(stillMissing);
        }
        throw new LockBackendException(
                JdbcLockBackend.NAME,
                db.address,
                key,
                "could not create the " + table.kind() + " '" + table.name() + "' (" + LockDatabase.causes(reason)
                        + "). Check that the database user may create tables, or create it yourself (e.g. from a"
                        + " Flyway or Liquibase migration) with this DDL:\n" + table.ddl(),
                reason);
    }

    /**
     * The database with the dialect this table calls for. An earlier version's PostgreSQL table,
     * without the queue or waiting column, wakes every waiting registry, and a note says how to migrate.
     */
    LockDatabase forTable(String key, CallTimeout timeout) {
        if (!(db.dialect instanceof PostgresDialect postgres)) {
            return db;
        }
        if (probe(key, timeout, PostgresDialect.queueProbe(db.table)) == null) {
            return db.withDialect(postgres.forColumns(db.table, PostgresDialect.Waiters.QUEUE));
        }
        boolean marks = probe(key, timeout, PostgresDialect.waitingProbe(db.table)) == null;
        log.info(
                "The lock table '{}' in {} has no wait line{}, so a release wakes every registry waiting for its key"
                        + " instead of the next one; migrate it with the ALTER TABLE statements in classpath:{}",
                db.table,
                db.address,
                marks ? "" : " and no waiting column (every release notifies)",
                db.dialect.schemaResource());
        return db.withDialect(postgres.forColumns(
                db.table, marks ? PostgresDialect.Waiters.MARKED : PostgresDialect.Waiters.EVERY_RELEASE));
    }

    /** One bounded read of no rows, to see that the table has the expected columns. */
    void verify(CallTimeout timeout) {
        SQLException missing = probe(LockDatabase.NO_KEY, timeout);
        if (missing != null) {
            throw new LockBackendException(
                    JdbcLockBackend.NAME, db.address, LockDatabase.NO_KEY, missingTable(missing), missing);
        }
    }

    /** The DDL of this dialect for this table. */
    String script() {
        String resource = db.dialect.schemaResource();
        try (InputStream in = LockSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource + " in the lock-jdbc jar");
            }
            return db.table.into(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource, e);
        }
    }

    private String missingTable(SQLException cause) {
        return missingTable(
                new TableDdl("lock table", db.table.toString(), script()),
                db.address,
                cause,
                " with the DDL in classpath:" + db.dialect.schemaResource() + " (with ${table} = " + db.table + ")");
    }

    /** What to tell the user when a table cannot be read. Which table, where, the driver's reason, and how to create it. */
    static String missingTable(TableDdl table, String address, SQLException cause, String from) {
        return "The " + table.kind() + " '" + table.name() + "' is missing or lacks the expected columns in " + address
                + " ("
                + LockDatabase.causes(cause) + "). Create it" + from + ", e.g. from a Flyway or Liquibase"
                + " migration, or let distlock create it: JdbcLockRegistry.builder(..).initializeSchema(true). The DDL:\n"
                + table.ddl();
    }

    /** Null when the table can be read, else why not. A database that cannot be reached throws. */
    private SQLException probe(String key, CallTimeout timeout) {
        return probe(key, timeout, db.dialect.probe);
    }

    private SQLException probe(String key, CallTimeout timeout, String sql) {
        return db.run(key, timeout, connection -> {
            try (PreparedStatement statement = db.dialect.prepare(connection, sql, timeout);
                    ResultSet rs = statement.executeQuery()) {
                return null;
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                    throw e;
                }
                if (!connection.getAutoCommit()) {
                    connection.rollback(); // PostgreSQL refuses further statements in a failed transaction
                }
                return e;
            }
        });
    }

    /**
     * A table distlock needs.
     *
     * @param kind what messages call it
     * @param name its name
     * @param ddl the statement that creates it
     */
    record TableDdl(String kind, String name, String ddl) {}
}
