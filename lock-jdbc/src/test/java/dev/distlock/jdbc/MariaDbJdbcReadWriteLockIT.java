package dev.distlock.jdbc;

/** The read/write contract on MARIADB. */
class MariaDbJdbcReadWriteLockIT extends JdbcReadWriteLockContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
