-- distlock fence table for MySQL and MariaDB. Replace ${table} with the table name (default distributed_lock_fence);
-- copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- One row per fenced resource: the lock key and backend whose tokens it accepts, and the highest token
-- it accepted. A fence check locks the resource's row until the caller's transaction ends.
-- resource is VARBINARY so that names compare byte for byte (800 bytes = 200 characters of utf8mb4).
CREATE TABLE IF NOT EXISTS ${table} (
    resource   VARBINARY(800) NOT NULL PRIMARY KEY,
    backend    VARCHAR(64)    NOT NULL,
    lock_key   VARCHAR(4096) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    highest    BIGINT         NOT NULL,
    updated_at DATETIME(6)    NOT NULL
) ENGINE = InnoDB;
