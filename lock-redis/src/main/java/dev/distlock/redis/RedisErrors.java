package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import io.lettuce.core.RedisCommandExecutionException;

/**
 * What went wrong with one Redis deployment, worded for the caller with the server, the key and what to do. A refusal
 * by the server (a script error, a missing permission) is told apart from a server out of reach.
 */
final class RedisErrors {

    /** The key of a failure that concerns no one lock (a check of the server, connecting, closing). */
    static final String NO_KEY = null;

    private final String address;

    RedisErrors(String address) {
        this.address = address;
    }

    String address() {
        return address;
    }

    /** Redis could not be reached, or did not answer in time. */
    LockBackendException unreachable(String key, String problem, Throwable cause) {
        return new LockBackendException("redis", address, key, advised(problem), cause);
    }

    /** As {@link #unreachable(String, String, Throwable)}, for a problem without an exception. */
    LockBackendException unreachable(String key, String problem) {
        return new LockBackendException("redis", address, key, advised(problem));
    }

    private String advised(String problem) {
        return problem + ". Check that Redis runs at " + address + " and is reachable from this host.";
    }

    /** {@code call} failed with {@code error}, refused by the server or with the server out of reach. */
    LockBackendException failed(ScriptCall<?> call, Throwable error) {
        Throwable cause = PendingReply.unwrap(error);
        if (cause instanceof LockBackendException backend) {
            return backend;
        }
        String message = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        if (cause instanceof RedisCommandExecutionException) {
            return new LockBackendException(
                    "redis", address, call.lockKey(), "Redis refused " + call.script() + ": " + message, cause);
        }
        return unreachable(call.lockKey(), call.script() + " failed: " + message, cause);
    }

    /** Connecting failed. {@code factoryStopped} says whether the application stopped its connection factory. */
    LockBackendException couldNotConnect(RuntimeException e, boolean factoryStopped) {
        if (factoryStopped) {
            // Redis may well run. The application stopped its client, as at shutdown.
            return new LockBackendException(
                    "redis",
                    address,
                    NO_KEY,
                    "could not connect: the application stopped its Redis connection factory (as during shutdown): "
                            + e.getMessage(),
                    e);
        }
        return unreachable(NO_KEY, "could not connect: " + e.getMessage(), e);
    }

    LockBackendException closed() {
        return new LockBackendException("redis", address, NO_KEY, "the registry is closed");
    }
}
