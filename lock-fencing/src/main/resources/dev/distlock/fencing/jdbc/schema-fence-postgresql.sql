-- distlock fence table for PostgreSQL. Replace ${table} with the table name (default distributed_lock_fence);
-- copied into a Flyway migration, Flyway substitutes it when given a placeholder named "table".
-- One row per fenced resource: the lock key and backend whose tokens it accepts, and the highest token
-- it accepted. A fence check locks the resource's row until the caller's transaction ends.
CREATE TABLE IF NOT EXISTS ${table} (
    resource   VARCHAR(200)  NOT NULL PRIMARY KEY,
    backend    VARCHAR(64)   NOT NULL,
    lock_key   VARCHAR(4096) NOT NULL,
    highest    BIGINT        NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);
