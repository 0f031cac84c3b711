package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

/** The databases the lock table runs on, each with its {@link Statements} and DDL resource. */
enum Dialect {
    POSTGRESQL("postgresql", Statements.postgresql()),
    /** MySQL and MariaDB. */
    MYSQL("mysql", Statements.mysql()),
    H2("h2", Statements.h2());

    private final String id;
    private final Statements statements;

    Dialect(String id, Statements statements) {
        this.id = id;
        this.statements = statements;
    }

    /** The statements, with {@code ${table}} standing for the table name. */
    Statements statements() {
        return statements;
    }

    /** The dialect for {@link java.sql.DatabaseMetaData#getDatabaseProductName()}. */
    static Dialect of(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return MYSQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new IllegalStateException("The jdbc lock backend does not support the database '" + productName
                + "'. Supported: PostgreSQL, MySQL, MariaDB and H2; use another distributed-lock.backend for it.");
    }

    /** The DDL resource on the classpath, with {@code ${table}} standing for the table name. */
    String schemaResource() {
        return "dev/distlock/jdbc/schema-" + id + ".sql";
    }

    /** The lease as bound into the statements. */
    long leaseAmount(Duration lease) {
        if (this == MYSQL) {
            // DATETIME(3) truncates the current time to the millisecond: one more keeps the
            // database's lease at least as long as the client's view of it.
            return (lease.plusMillis(1).toNanos() + 999) / 1000;
        }
        return (lease.toNanos() + 999_999) / 1_000_000;
    }

    /**
     * Whether a statement failed by giving up a wait, the database alive and the statement rolled
     * back: cancelled at its query timeout, a lock-wait timeout, a deadlock or serialization
     * victim. A lost connection (SQL state class 08) never counts.
     */
    boolean gaveUpWaiting(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("08")) {
            return false;
        }
        if (e instanceof SQLTimeoutException
                || e instanceof SQLTransactionRollbackException
                || state.startsWith("40")) {
            return true;
        }
        return switch (this) {
            // 57014 query_canceled (the query timeout), 55P03 lock_not_available (a lock_timeout)
            case POSTGRESQL -> state.equals("57014") || state.equals("55P03");
            // 1205 lock wait timeout, 1317 query interrupted, 1969 MariaDB's max_statement_time, 3024 MySQL's
            // max_execution_time
            case MYSQL ->
                state.equals("70100")
                        || switch (e.getErrorCode()) {
                            case 1205, 1317, 1969, 3024 -> true;
                            default -> false;
                        };
            // 57014 statement cancelled, HYT00 lock timeout
            case H2 -> state.equals("57014") || state.startsWith("HYT");
        };
    }

    /** Reads the result of {@link #now}. */
    Instant readNow(ResultSet rs) throws SQLException {
        if (this == MYSQL) {
            return rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
        }
        return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
}
