-- distlock lock table for PostgreSQL. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- A row exists while its key is held: release deletes it. fence is max(previous fence + 1, the database
-- clock in microseconds), so fencing tokens keep rising after a row was deleted.
-- wait_line holds the wake-up channels of the registries waiting for the key, in the order they came:
-- a release notifies (LISTEN/NOTIFY) only the first, and keeps the row, free, while others are in line.
-- line_until is when the line lapses unless a waiter tries again (a registry that went away leaves its
-- place behind). waiting is set by a waiter that has no place in line; its release notifies every
-- registry. A table created by an earlier version is migrated with (without the line, releases wake
-- every registry that waits; without the waiting column, every release notifies):
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS holder VARCHAR(200);
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS waiting BOOLEAN NOT NULL DEFAULT FALSE;
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS wait_line TEXT[] NOT NULL DEFAULT '{}';
--   ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS line_until TIMESTAMP WITH TIME ZONE;
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARCHAR(255) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64),
    holder     VARCHAR(200),
    expires_at TIMESTAMP WITH TIME ZONE,
    fence      BIGINT NOT NULL,
    waiting    BOOLEAN NOT NULL DEFAULT FALSE,
    wait_line  TEXT[] NOT NULL DEFAULT '{}',
    line_until TIMESTAMP WITH TIME ZONE
);
