package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;
import java.sql.SQLException;

/**
 * A lock statement gave up waiting and was rolled back, changing nothing. A waiter takes it as "not
 * free this time". For a renewal or a release it is a failure like any other.
 */
final class LockStatementTimeoutException extends LockBackendException {

    LockStatementTimeoutException(String address, String key, String problem, SQLException cause) {
        super(JdbcLockBackend.NAME, address, key, problem, cause);
    }
}
