-- distlock read/write lock table for PostgreSQL, beside the lock table ${table}: ${table}_rw.
-- One row per key with owner '' (mode 'a') carries the key's fence and is locked FOR UPDATE by every
-- acquisition, so decisions on one key are serialised; the other rows are holds (mode 'r' reader,
-- 'w' writer) and waiting writers' intents ('q'), each until expires_us (database clock, µs since 1970).
-- A read hold and a write hold of one thread may carry the same owner id, hence mode in the key.
CREATE TABLE IF NOT EXISTS ${table}_rw (
    lock_key   VARCHAR(255) NOT NULL,
    owner      VARCHAR(64)  NOT NULL,
    mode       CHAR(1)      NOT NULL,
    expires_us BIGINT       NOT NULL,
    fence      BIGINT       NOT NULL,
    holder     VARCHAR(200) NOT NULL,
    PRIMARY KEY (lock_key, owner, mode)
);
