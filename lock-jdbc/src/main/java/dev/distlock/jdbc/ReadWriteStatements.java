package dev.distlock.jdbc;

import dev.distlock.core.spi.LockMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The statements on the read/write table ({@code <lock table>_rw}) for one database, with the
 * table name and the database's clock (in microseconds since 1970) in place, and its DDL. Only
 * the clock expression and the DDL differ per database.
 */
final class ReadWriteStatements {

    final String table;
    final String ddl;
    final String probe;
    final String lockAnchor;
    final String deleteExpired;
    final String holds;
    final String setFence;
    final String insert;
    final String deleteHold;
    final String deleteLiveHold;
    final String deleteIntent;
    final String liveRows;
    final String deleteKey;
    final String renew;
    /** Wakes the waiters of a key (by {@link #signalKey}) when it commits. Null where nothing listens. */
    final String notify;
    /** {@link #notify} for two keys in one statement (a write release wakes readers and writers). */
    final String notifyBoth;
    /** Whether a key still has a live hold, an intent apart. */
    final String liveHolds;

    ReadWriteStatements(Dialect dialect, String lockTable) {
        String t = lockTable + "_rw";
        String now = nowMicros(dialect);
        this.table = t;
        this.ddl = ddl(ddlResource(dialect)).replace("${table}", lockTable);
        this.probe = "SELECT 1 FROM " + t + " WHERE 1 = 0";
        this.lockAnchor = "SELECT fence, " + now + " FROM " + t + " WHERE lock_key = ? AND owner = '' FOR UPDATE";
        this.deleteExpired = "DELETE FROM " + t + " WHERE lock_key = ? AND owner <> '' AND expires_us <= ?";
        this.holds = "SELECT owner, mode, fence FROM " + t + " WHERE lock_key = ? AND owner <> ''";
        this.setFence = "UPDATE " + t + " SET fence = ? WHERE lock_key = ? AND owner = ''";
        this.insert =
                "INSERT INTO " + t + " (lock_key, owner, mode, expires_us, fence, holder) VALUES (?, ?, ?, ?, ?, ?)";
        this.deleteHold = "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = ?";
        this.deleteLiveHold = "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = ? AND expires_us > ?";
        this.deleteIntent = "DELETE FROM " + t + " WHERE lock_key = ? AND owner = ? AND mode = 'q'";
        this.liveRows = "SELECT 1 FROM " + t + " WHERE lock_key = ? AND owner <> '' AND expires_us > ?";
        this.deleteKey = "DELETE FROM " + t + " WHERE lock_key = ?";
        this.renew = "UPDATE " + t + " SET expires_us = " + now + " + ? WHERE lock_key = ? AND owner = ? AND mode = ?"
                + " AND expires_us > " + now;
        this.liveHolds = liveRows + " AND mode <> 'q'";
        this.notify = dialect instanceof PostgresDialect postgres
                ? "SELECT pg_notify('" + postgres.channel() + "', ?)"
                : null;
        this.notifyBoth = dialect instanceof PostgresDialect postgres
                ? notify + ", pg_notify('" + postgres.channel() + "', ?)"
                : null;
    }

    /**
     * What the waiters of {@code key} in {@code mode} listen for, apart from the plain lock's releases.
     * Readers wait for the writer to go, writers for the last hold.
     */
    static String signalKey(String key, LockMode mode) {
        return (mode == LockMode.READ ? "rw:r:" : "rw:w:") + key;
    }

    private static String nowMicros(Dialect dialect) {
        if (dialect instanceof PostgresDialect) {
            return "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";
        }
        if (dialect instanceof MySqlDialect) {
            return "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)";
        }
        return "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";
    }

    private static String ddlResource(Dialect dialect) {
        if (dialect instanceof PostgresDialect) {
            return "schema-rw-postgresql.sql";
        }
        return dialect instanceof MySqlDialect ? "schema-rw-mysql.sql" : "schema-rw-h2.sql";
    }

    /** The one statement of a DDL resource, without its comments and final semicolon. */
    private static String ddl(String resource) {
        try (InputStream in = ReadWriteStatements.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the lock-jdbc jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            StringBuilder statement = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.startsWith("--")) {
                    statement.append(line).append('\n');
                }
            }
            return statement.toString().trim().replaceAll(";$", "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
