-- distlock lock table for H2. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- A row exists while its key is held: release deletes it. fence is max(previous fence + 1, the database
-- clock in microseconds), so fencing tokens keep rising after a row was deleted.
-- A table created by an earlier version (no holder column) is migrated with:
--   ALTER TABLE ${table} ADD COLUMN holder VARCHAR(200);
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARCHAR(255) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64),
    holder     VARCHAR(200),
    expires_at TIMESTAMP(6) WITH TIME ZONE,
    fence      BIGINT NOT NULL
);
