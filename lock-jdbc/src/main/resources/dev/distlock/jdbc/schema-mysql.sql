-- distlock lock table for MySQL and MariaDB. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- lock_key is VARBINARY so that keys compare byte for byte: the usual collations would fold case,
-- accents and trailing spaces and let two different keys share one lock. 1020 bytes = 255 characters of utf8mb4.
-- expires_at holds UTC (UTC_TIMESTAMP) in microseconds, so sessions with different time zones agree.
-- A row exists while its key is held: release deletes it. fence is max(previous fence + 1, the database
-- clock in microseconds), so fencing tokens keep rising after a row was deleted.
-- A table created by an earlier version (no holder column, milliseconds) is migrated with:
--   ALTER TABLE ${table} ADD COLUMN holder VARCHAR(200) NULL, MODIFY expires_at DATETIME(6) NULL;
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARBINARY(1020) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    holder     VARCHAR(200) NULL,
    expires_at DATETIME(6) NULL,
    fence      BIGINT NOT NULL
) ENGINE = InnoDB;
