package dev.distlock.jdbc;

/** The contract and the lock-table behaviour on POSTGRESQL. */
class PostgresJdbcLockRegistryIT extends JdbcLockRegistryContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    /** The connection that listens for release notifications. */
    @Override
    protected int listenerConnections() {
        return 1;
    }
}
