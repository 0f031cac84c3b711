package dev.distlock.jdbc;

/**
 * The lock statements of one dialect, with {@code ${table}} standing for the table name. Every
 * time in them is the database's own clock; the client binds only a lease length.
 *
 * <p>Parameters: take (owner, lease, key), or when it returns the fence (an upsert) (key, owner, lease); readFence (key,
 * owner); insert (key, owner, lease); renew (lease, key, owner); releaseLive (key, owner).
 *
 * @param take takes a free or expired row, bumping its fence
 * @param readFence reads the fence of the row just taken; null when {@code take} is an upsert returning it
 * @param insert inserts a missing row with fence 1, 0 rows when it exists; null when {@code take} inserts
 * @param renew extends an unexpired lease of the owner
 * @param releaseLive frees the row if the owner's lease has not expired
 * @param now the database's current time
 */
record Statements(String take, String readFence, String insert, String renew, String releaseLive, String now) {

    /** Frees an expired row still marked with the releasing owner; never touches another owner's row. */
    static final String CLEAR_OWN =
            "UPDATE ${table} SET owner = NULL, expires_at = NULL WHERE lock_key = ? AND owner = ?";

    /** Reads the fence of a row just taken, by its owner (unique per hold). */
    private static final String READ_FENCE_BY_OWNER = "SELECT fence FROM ${table} WHERE lock_key = ? AND owner = ?";

    /** Checks that the table exists with the expected columns, reading no rows. */
    static final String PROBE = "SELECT lock_key, owner, expires_at, fence FROM ${table} WHERE 1 = 0";

    /**
     * One upsert takes a free, expired or missing row and returns the fence. {@code
     * clock_timestamp()} is the time the statement runs, not when a transaction began.
     */
    static Statements postgresql() {
        String take = """
                INSERT INTO ${table} AS l (lock_key, owner, expires_at, fence)
                VALUES (?, ?, clock_timestamp() + ? * INTERVAL '1 millisecond', 1)
                ON CONFLICT (lock_key) DO UPDATE
                   SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, fence = l.fence + 1
                 WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()
                RETURNING fence""";
        String renew = """
                UPDATE ${table} SET expires_at = clock_timestamp() + ? * INTERVAL '1 millisecond'
                 WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""";
        String releaseLive = """
                UPDATE ${table} SET owner = NULL, expires_at = NULL
                 WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""";
        return new Statements(take, null, null, renew, releaseLive, "SELECT clock_timestamp()");
    }

    /**
     * MySQL and MariaDB have no UPDATE ... RETURNING: the fence is read back by owner (owners are
     * unique per hold, so the row read is the one just taken). UTC_TIMESTAMP, unlike NOW(), does
     * not depend on the session's time zone. INSERT IGNORE turns the duplicate key of a row that
     * exists into 0 rows rather than an error (which MariaDB's driver would log at WARN); nothing
     * else can be ignored, as every column is given and keys and owners fit their columns.
     */
    static Statements mysql() {
        String take = """
                UPDATE ${table}
                   SET owner = ?, expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, fence = fence + 1
                 WHERE lock_key = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(3))""";
        String insert = """
                INSERT IGNORE INTO ${table} (lock_key, owner, expires_at, fence)
                VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, 1)""";
        String renew = """
                UPDATE ${table} SET expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND
                 WHERE lock_key = ? AND owner = ? AND expires_at > UTC_TIMESTAMP(3)""";
        String releaseLive = """
                UPDATE ${table} SET owner = NULL, expires_at = NULL
                 WHERE lock_key = ? AND owner = ? AND expires_at > UTC_TIMESTAMP(3)""";
        return new Statements(take, READ_FENCE_BY_OWNER, insert, renew, releaseLive, "SELECT UTC_TIMESTAMP(3)");
    }

    /**
     * H2 could return the fence through {@code SELECT fence FROM FINAL TABLE (UPDATE ...)}, but
     * that measured slower in-process than an update followed by a read by owner. A racing first
     * insert fails with a duplicate key, which counts as "held".
     */
    static Statements h2() {
        String take = """
                UPDATE ${table}
                   SET owner = ?, expires_at = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP), fence = fence + 1
                 WHERE lock_key = ? AND (owner IS NULL OR expires_at <= CURRENT_TIMESTAMP)""";
        String insert = """
                INSERT INTO ${table} (lock_key, owner, expires_at, fence)
                VALUES (?, ?, DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP), 1)""";
        String renew = """
                UPDATE ${table} SET expires_at = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)
                 WHERE lock_key = ? AND owner = ? AND expires_at > CURRENT_TIMESTAMP""";
        String releaseLive = """
                UPDATE ${table} SET owner = NULL, expires_at = NULL
                 WHERE lock_key = ? AND owner = ? AND expires_at > CURRENT_TIMESTAMP""";
        return new Statements(take, READ_FENCE_BY_OWNER, insert, renew, releaseLive, "SELECT CURRENT_TIMESTAMP");
    }
}
