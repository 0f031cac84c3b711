-- distlock lock table for PostgreSQL. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- A row exists while its key is held: release deletes it. fence is max(previous fence + 1, the database
-- clock in microseconds), so fencing tokens keep rising after a row was deleted.
-- waiting is set by a waiter that found the key held, so that only then the release notifies waiters
-- (LISTEN/NOTIFY). A table created by an earlier version is migrated with (without the waiting column
-- every release notifies):
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS holder VARCHAR(200);
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS waiting BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARCHAR(255) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64),
    holder     VARCHAR(200),
    expires_at TIMESTAMP WITH TIME ZONE,
    fence      BIGINT NOT NULL,
    waiting    BOOLEAN NOT NULL DEFAULT FALSE
);
