package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The read/write table ({@code <lock table>_rw}), checked or created by the first read/write call,
 * so registries that never use read/write locks need none. A failed check is tried again.
 */
final class ReadWriteSchema {

    /** The database and the statements once the table was found usable. */
    record Checked(LockDatabase db, ReadWriteStatements sql) {}

    private final LockTableSetup setup;
    private final String lockTable;
    private final boolean initializeSchema;
    private volatile Checked checked;

    ReadWriteSchema(LockTableSetup setup, String lockTable, boolean initializeSchema) {
        this.setup = setup;
        this.lockTable = lockTable;
        this.initializeSchema = initializeSchema;
    }

    String address() {
        return setup.address() + " table " + tableName();
    }

    String tableName() {
        return lockTable + "_rw";
    }

    /**
     * The usable table. Connects first if no call has yet.
     *
     * @throws SQLException when the database failed the check
     * @throws LockBackendException when the table is missing and may not be created, with its DDL
     */
    Checked checked(String key, CallTimeout timeout) throws SQLException {
        Checked current = checked;
        if (current != null) {
            return current;
        }
        LockDatabase db = setup.database(key, timeout);
        synchronized (this) {
            if (checked == null) {
                ReadWriteStatements sql = new ReadWriteStatements(db.dialect, lockTable);
                check(db, sql, key, LockTableSetup.setUpTimeout(timeout));
                checked = new Checked(db, sql);
            }
            return checked;
        }
    }

    private void check(LockDatabase db, ReadWriteStatements sql, String key, CallTimeout timeout) throws SQLException {
        SQLException missing = probe(db, sql, timeout);
        if (missing == null) {
            return;
        }
        if (!initializeSchema) {
            throw new LockBackendException(
                    JdbcLockBackend.NAME,
                    db.address,
                    key,
                    LockSchema.missingTable(tableDdl(sql), db.address, missing, ""),
                    missing);
        }
        LockSchema.create(db, tableDdl(sql), key, timeout, () -> {
            try {
                return probe(db, sql, timeout);
            } catch (SQLException e) {
                throw db.failure(key, e);
            }
        });
    }

    private static LockSchema.TableDdl tableDdl(ReadWriteStatements sql) {
        return new LockSchema.TableDdl("read/write lock table", sql.table, sql.ddl);
    }

    /** Null when the table can be read, else why not. A database that cannot be reached throws. */
    private static SQLException probe(LockDatabase db, ReadWriteStatements sql, CallTimeout timeout)
            throws SQLException {
        try {
            db.call(timeout, connection -> {
                try (Statement select = connection.createStatement()) {
                    select.executeQuery(sql.probe).close();
                }
                return null;
            });
            return null;
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw e; // the database, not the table
            }
            return e;
        }
    }
}
