package dev.distlock.jdbc;

/** The contract and the lock-table behaviour on H2, in-process. */
class H2JdbcLockRegistryIT extends JdbcLockRegistryContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.H2;
    }
}
