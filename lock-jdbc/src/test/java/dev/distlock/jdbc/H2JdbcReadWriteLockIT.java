package dev.distlock.jdbc;

/** The read/write contract on H2. */
class H2JdbcReadWriteLockIT extends JdbcReadWriteLockContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.H2;
    }
}
