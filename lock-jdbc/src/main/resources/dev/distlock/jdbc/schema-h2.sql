-- distlock lock table for H2. Replace ${table} with the table name (default distributed_lock);
-- Copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- Rows are never deleted: release clears the owner and keeps fence, so fencing tokens keep rising.
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key   VARCHAR(255) NOT NULL PRIMARY KEY,
    owner      VARCHAR(64),
    expires_at TIMESTAMP WITH TIME ZONE,
    fence      BIGINT NOT NULL
);
