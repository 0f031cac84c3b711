package dev.distlock.jdbc;

/** The read/write contract on POSTGRESQL. */
class PostgresJdbcReadWriteLockIT extends JdbcReadWriteLockContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
