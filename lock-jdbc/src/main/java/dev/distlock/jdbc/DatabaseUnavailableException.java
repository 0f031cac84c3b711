package dev.distlock.jdbc;

import dev.distlock.core.LockBackendException;

/**
 * The database or a pooled connection was unavailable for now. A waiting acquisition rides it out
 * while its wait lasts. A statement sent before the failure may have been carried out.
 */
final class DatabaseUnavailableException extends LockBackendException {

    DatabaseUnavailableException(String address, String key, String problem, Throwable cause) {
        super(JdbcLockBackend.NAME, address, key, problem, cause);
    }
}
