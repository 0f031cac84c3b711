package dev.distlock.jdbc;

import java.time.Duration;

/** The contract and the lock-table behaviour on H2, in-process. */
class H2JdbcLockRegistryIT extends JdbcLockRegistryContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.H2;
    }

    /** H2 ends a row lock wait at its LOCK_TIMEOUT (2 s by default), whatever the query timeout. */
    @Override
    protected Duration shortestRowLockWait() {
        return Duration.ofSeconds(2);
    }
}
