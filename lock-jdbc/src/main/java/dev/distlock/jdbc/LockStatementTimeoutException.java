package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.sql.SQLException;

/**
 * A lock statement gave up waiting and changed nothing: the database cancelled it at its query
 * timeout, ended a lock wait or chose it as a deadlock victim, and rolled it back. The database
 * answered, so a waiter takes it as "not free this time"; for a renewal or a release it is a
 * failure like any other.
 */
final class LockStatementTimeoutException extends LockBackendException {

    LockStatementTimeoutException(String address, String key, String problem, SQLException cause) {
        super(JdbcLockBackend.NAME, address, key, problem, cause);
    }
}
