package dev.distlock.jdbc;

/** The contract and the lock-table behaviour on MARIADB. */
class MariaDbJdbcLockRegistryIT extends JdbcLockRegistryContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
