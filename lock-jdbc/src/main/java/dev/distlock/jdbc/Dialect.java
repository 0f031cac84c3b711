package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * The SQL of each supported database. Every time in a statement is the database's own clock;
 * the client only ever binds a lease length, so JVMs whose clocks disagree stay safe.
 *
 * <p>Parameter order, the same in every dialect: take (owner, lease, key) and, for PostgreSQL's
 * upsert, (key, owner, lease); insert (key, owner, lease); readFence (key, owner); renew (lease,
 * key, owner); releaseLive and clearOwn (key, owner).
 */
enum Dialect {

    /**
     * One upsert takes a free, expired or missing row and returns the fence. {@code
     * clock_timestamp()} is the time the statement runs, not when a transaction began.
     */
    POSTGRESQL("postgresql", """
            INSERT INTO ${table} AS l (lock_key, owner, expires_at, fence)
            VALUES (?, ?, clock_timestamp() + ? * INTERVAL '1 millisecond', 1)
            ON CONFLICT (lock_key) DO UPDATE
               SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, fence = l.fence + 1
             WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()
            RETURNING fence""", null, null, """
            UPDATE ${table} SET expires_at = clock_timestamp() + ? * INTERVAL '1 millisecond'
             WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""", """
            UPDATE ${table} SET owner = NULL, expires_at = NULL
             WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""", "SELECT clock_timestamp()"),

    /**
     * MySQL and MariaDB have no UPDATE ... RETURNING: the fence is read back by owner (owners are
     * unique per hold, so the row read is the one just taken). UTC_TIMESTAMP, unlike NOW(), does
     * not depend on the session's time zone.
     */
    MYSQL(
            "mysql",
            """
            UPDATE ${table}
               SET owner = ?, expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, fence = fence + 1
             WHERE lock_key = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(3))""",
            "SELECT fence FROM ${table} WHERE lock_key = ? AND owner = ?",
            """
            INSERT INTO ${table} (lock_key, owner, expires_at, fence)
            VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, 1)""",
            """
            UPDATE ${table} SET expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND
             WHERE lock_key = ? AND owner = ? AND expires_at > UTC_TIMESTAMP(3)""",
            """
            UPDATE ${table} SET owner = NULL, expires_at = NULL
             WHERE lock_key = ? AND owner = ? AND expires_at > UTC_TIMESTAMP(3)""",
            "SELECT UTC_TIMESTAMP(3)"),

    /** H2 returns the updated row's fence through a FINAL TABLE query. */
    H2("h2", """
            SELECT fence FROM FINAL TABLE (
              UPDATE ${table}
                 SET owner = ?, expires_at = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP), fence = fence + 1
               WHERE lock_key = ? AND (owner IS NULL OR expires_at <= CURRENT_TIMESTAMP))""", null, """
            INSERT INTO ${table} (lock_key, owner, expires_at, fence)
            VALUES (?, ?, DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP), 1)""", """
            UPDATE ${table} SET expires_at = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)
             WHERE lock_key = ? AND owner = ? AND expires_at > CURRENT_TIMESTAMP""", """
            UPDATE ${table} SET owner = NULL, expires_at = NULL
             WHERE lock_key = ? AND owner = ? AND expires_at > CURRENT_TIMESTAMP""", "SELECT CURRENT_TIMESTAMP");

    /** Frees an expired row still marked with the releasing owner; never touches another owner's row. */
    static final String CLEAR_OWN =
            "UPDATE ${table} SET owner = NULL, expires_at = NULL WHERE lock_key = ? AND owner = ?";

    /** Checks that the table exists with the expected columns, reading no rows. */
    static final String PROBE = "SELECT lock_key, owner, expires_at, fence FROM ${table} WHERE 1 = 0";

    private final String id;
    final String take;
    /** Null when {@link #take} returns the fence itself. */
    final String readFence;
    /** Null when {@link #take} also inserts a missing row. */
    final String insert;

    final String renew;
    final String releaseLive;
    final String now;

    Dialect(String id, String take, String readFence, String insert, String renew, String releaseLive, String now) {
        this.id = id;
        this.take = take;
        this.readFence = readFence;
        this.insert = insert;
        this.renew = renew;
        this.releaseLive = releaseLive;
        this.now = now;
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

    /** Whether {@link #take} is a query returning the fence, rather than an update. */
    boolean takeReturnsFence() {
        return readFence == null;
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

    /** Reads the result of {@link #now}. */
    Instant readNow(ResultSet rs) throws SQLException {
        if (this == MYSQL) {
            return rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
        }
        return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
}
