package dev.distlock.jdbc;

/**
 * The statement texts of the lock table on PostgreSQL, with {@code ${table}}, {@code ${now_us}} and
 * the other placeholders that {@link PostgresDialect} fills in for its table and columns.
 */
final class PostgresStatements {

    static final String NOW_US = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

    /**
     * The take, its row lock wait bounded by {@code lock_timeout} for the driver's implicit
     * transaction. ${granted} is what a grant also sets.
     */
    static final String TAKE = """
            SELECT set_config('lock_timeout', ?, true);
            INSERT INTO ${table} AS l (lock_key, owner, holder, expires_at, fence)
            VALUES (?, ?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond', ${now_us})
            ON CONFLICT (lock_key) DO UPDATE
               SET owner = EXCLUDED.owner, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
                   fence = GREATEST(l.fence + 1, ${now_us})${granted}
             WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()
            RETURNING fence""";

    /**
     * With a queue, a grant starts the row unmarked and takes the registry's channel off the queue
     * (the channel bound is null when the registry stays in the queue).
     */
    static final String GRANTED_IN_QUEUE = """
            ,
                   waiting = FALSE, wait_line = array_remove(l.wait_line, ?::text)""";

    /** When the key is held by another owner, marks its row as waited for (once), so that its release notifies. */
    static final String MARK_WAITING = """
            ;
            UPDATE ${table} SET waiting = TRUE WHERE lock_key = ? AND owner <> ? AND NOT waiting""";

    /**
     * When the key is held by another owner, puts the registry's channel at the end of the queue
     * and keeps the queue for {@code place} µs more. The row is written only when that changes
     * something or half the place is gone. Without a channel, marks the row.
     */
    static final String JOIN_QUEUE = """
            ;
            WITH w AS (SELECT ?::text AS channel, ?::bigint AS place)
            UPDATE ${table} l
               SET waiting = l.waiting OR w.channel IS NULL,
                   wait_line = CASE WHEN w.channel IS NULL OR w.channel = ANY(l.wait_line) THEN l.wait_line
                                    ELSE l.wait_line || w.channel END,
                   line_until = CASE WHEN w.channel IS NULL THEN l.line_until
                                     ELSE clock_timestamp() + w.place * INTERVAL '1 microsecond' END
              FROM w
             WHERE l.lock_key = ? AND l.owner <> ?
               AND CASE WHEN w.channel IS NULL THEN NOT l.waiting
                        ELSE NOT w.channel = ANY(l.wait_line) OR l.line_until IS NULL
                             OR l.line_until < clock_timestamp() + w.place / 2 * INTERVAL '1 microsecond' END""";

    /**
     * Notifies only when a waiter marked the row, or always on a table without the waiting column.
     * The release commits without waiting for its WAL flush ({@code synchronous_commit} off).
     */
    static final String DELETE_LIVE = """
            SELECT set_config('synchronous_commit', 'off', true);
            WITH released AS (
                DELETE FROM ${table}
                 WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp() AND fence < ${now_us}
                RETURNING lock_key, ${waiting} AS waiting)
            SELECT CASE WHEN waiting THEN pg_notify('${channel}', lock_key) END FROM released""";

    /**
     * The release with a queue. It deletes the row when nobody is queued, and otherwise keeps the row
     * free and notifies the first channel it takes off the queue. A marked row also notifies the
     * table's channel. Committed as {@link #DELETE_LIVE}.
     */
    static final String RELEASE_TO_QUEUE = """
            SELECT set_config('synchronous_commit', 'off', true);
            WITH released AS (
                SELECT lock_key, waiting, wait_line[1] AS next FROM ${table}
                 WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp() AND fence < ${now_us}
                   FOR UPDATE),
            deleted AS (
                DELETE FROM ${table} l USING released r WHERE l.lock_key = r.lock_key AND r.next IS NULL),
            kept AS (
                UPDATE ${table} l
                   SET owner = NULL, holder = NULL, expires_at = NULL, waiting = FALSE, wait_line = l.wait_line[2:]
                  FROM released r WHERE l.lock_key = r.lock_key AND r.next IS NOT NULL)
            SELECT CASE WHEN next IS NOT NULL THEN pg_notify(next, lock_key) END,
                   CASE WHEN waiting THEN pg_notify('${channel}', lock_key) END
              FROM released""";

    /**
     * A registry leaves the key's queue, unless its bound channel is null. Then a free key's first
     * queued registry is taken off and woken, and a free row nobody waits for is deleted.
     */
    static final String PASS_ON = """
            SELECT set_config('synchronous_commit', 'off', true);
            UPDATE ${table} SET wait_line = array_remove(wait_line, ?::text)
             WHERE lock_key = ? AND ?::text = ANY(wait_line);
            WITH free AS (
                SELECT lock_key, wait_line[1] AS next FROM ${table}
                 WHERE lock_key = ? AND (owner IS NULL OR expires_at <= clock_timestamp())
                   AND cardinality(wait_line) > 0
                   FOR UPDATE),
            popped AS (
                UPDATE ${table} l SET wait_line = l.wait_line[2:] FROM free f WHERE l.lock_key = f.lock_key)
            SELECT pg_notify(next, lock_key) FROM free;
            DELETE FROM ${table}
             WHERE lock_key = ? AND owner IS NULL AND cardinality(wait_line) = 0 AND fence < ${now_us}""";

    static final String RENEW = """
            UPDATE ${table} SET expires_at = clock_timestamp() + ? * INTERVAL '1 microsecond'
             WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()""";

    static final String CLEAR_LIVE = """
            UPDATE ${table} SET owner = NULL, holder = NULL, expires_at = NULL
             WHERE lock_key = ? AND ${whose} AND expires_at > clock_timestamp()""";

    static final String HOLDER = """
            SELECT holder, fence, (EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000000)::BIGINT
              FROM ${table}
             WHERE lock_key = ? AND owner IS NOT NULL AND expires_at > clock_timestamp()""";

    /** ${line} keeps rows held free for queued registries until the queue lapses. */
    static final String SWEEP = """
            DELETE FROM ${table} WHERE lock_key IN (
                SELECT lock_key FROM ${table}
                 WHERE (owner IS NULL OR expires_at <= clock_timestamp()) AND fence < ${now_us}${line}
                 LIMIT ? FOR UPDATE SKIP LOCKED)""";

    static final String QUEUE_LAPSED = """

                   AND (cardinality(wait_line) = 0 OR line_until IS NULL OR line_until <= clock_timestamp())""";

    private PostgresStatements() {}

    /** The take, with what a grant and a refusal also write on a table with {@code waiters}' columns. */
    static String take(PostgresDialect.Waiters waiters) {
        return switch (waiters) {
            case EVERY_RELEASE -> TAKE.replace("${granted}", "");
            case MARKED -> TAKE.replace("${granted}", "") + MARK_WAITING;
            case QUEUE -> TAKE.replace("${granted}", GRANTED_IN_QUEUE) + JOIN_QUEUE;
        };
    }

    /** The release, notifying as the table's columns allow, on the table's {@code channel}. */
    static String release(PostgresDialect.Waiters waiters, String channel) {
        return (waiters == PostgresDialect.Waiters.QUEUE ? RELEASE_TO_QUEUE : DELETE_LIVE)
                .replace("${channel}", channel)
                .replace("${waiting}", waiters == PostgresDialect.Waiters.EVERY_RELEASE ? "TRUE" : "waiting");
    }

    /** The sweep. Rows held free for queued registries stay until the queue lapses. */
    static String sweep(PostgresDialect.Waiters waiters) {
        return SWEEP.replace("${line}", waiters == PostgresDialect.Waiters.QUEUE ? QUEUE_LAPSED : "");
    }
}
