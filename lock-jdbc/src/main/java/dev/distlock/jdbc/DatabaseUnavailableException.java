package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;

/**
 * The database could not be reached, dropped the connection, was shutting down or starting up, or
 * the pool had no connection in time: a failure that may pass, which a waiting acquisition rides
 * out while its wait lasts. A statement sent before the failure may have been carried out.
 */
final class DatabaseUnavailableException extends LockBackendException {

    DatabaseUnavailableException(String address, String key, String problem, Throwable cause) {
        super(JdbcLockBackend.NAME, address, key, problem, cause);
    }
}
