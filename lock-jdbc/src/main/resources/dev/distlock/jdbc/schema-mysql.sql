-- distlock lock table for MySQL and MariaDB. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- lock_key is VARBINARY so that keys compare byte for byte: the usual collations would fold case,
-- accents and trailing spaces and let two different keys share one lock. 1020 bytes = 255 characters of utf8mb4.
-- expires_at holds UTC (UTC_TIMESTAMP), so sessions with different time zones agree.
-- Rows are never deleted: release clears the owner and keeps fence, so fencing tokens keep rising.
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARBINARY(1020) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    expires_at DATETIME(3) NULL,
    fence      BIGINT NOT NULL
) ENGINE = InnoDB;
