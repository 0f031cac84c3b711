package dev.distlock.etcd;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for jetcd's futures with a time limit and turns failures into {@link
 * LockBackendException}s that name the key, the backend and its address. jetcd retries an
 * unreachable server internally for a long time; these limits are what keep a caller from
 * waiting past its wait time.
 */
final class EtcdRequests {

    /** A request gets at least this long even when the wait time is shorter (a zero-wait tryLock). */
    private static final long FLOOR_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String address;
    private final Duration requestTimeout;

    EtcdRequests(String address, Duration requestTimeout) {
        this.address = address;
        this.requestTimeout = requestTimeout;
    }

    String address() {
        return address;
    }

    /** The limit of one request of an acquisition: its wait time left, within [1s, request timeout]. */
    long timeoutWithin(Deadline deadline) {
        long max = requestTimeout.toNanos();
        return Math.min(max, Math.max(deadline.remainingNanos(), Math.min(FLOOR_NANOS, max)));
    }

    /** The limit of withdrawing a waiter's entry, which happens after its wait time has passed. */
    long cleanupTimeout() {
        return Math.min(FLOOR_NANOS, requestTimeout.toNanos());
    }

    /** The limit of a request that has no wait time of its own (renew, release). */
    long timeout() {
        return requestTimeout.toNanos();
    }

    /** The answer of {@code request}, waiting at most {@code timeoutNanos}; interruptible. */
    <T> T await(CompletableFuture<T> request, long timeoutNanos, String key, String action)
            throws InterruptedException {
        try {
            return request.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            request.cancel(true);
            throw e;
        } catch (TimeoutException e) {
            throw noAnswer(request, timeoutNanos, key, action, e);
        } catch (ExecutionException e) {
            throw failed(key, action, e.getCause());
        }
    }

    /**
     * Like {@link #await} but not cut short by an interrupt: a release in the {@code finally}
     * of an interrupted thread must still free the key. The interrupt is kept for the caller.
     */
    <T> T awaitUninterruptibly(CompletableFuture<T> request, long timeoutNanos, String key, String action) {
        long end = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return request.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    throw noAnswer(request, timeoutNanos, key, action, e);
                } catch (ExecutionException e) {
                    throw failed(key, action, e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private LockBackendException noAnswer(
            CompletableFuture<?> request, long timeoutNanos, String key, String action, TimeoutException e) {
        request.cancel(true);
        return failure(
                key,
                action + " got no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                        + " ms. Check that etcd is running and reachable from this host.",
                e);
    }

    /** The failure with what etcd said: gRPC's status and, where it differs, the server's own words. */
    private LockBackendException failed(String key, String action, Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String detail = cause.getMessage();
        if (root != cause && root.getMessage() != null && !root.getMessage().equals(detail)) {
            detail = detail + " (" + root.getMessage() + ")";
        }
        return failure(key, action + " failed: " + detail, cause);
    }

    LockBackendException failure(String key, String problem, Throwable cause) {
        return new LockBackendException("etcd", address, key, problem, cause);
    }

    /** True when etcd answered that the lease does not exist (expired or revoked). */
    static boolean isLeaseNotFound(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND) {
                return true;
            }
            // Some jetcd calls (revoke) hand gRPC's status through unconverted.
            if (t instanceof StatusRuntimeException grpc && grpc.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return true;
            }
        }
        return false;
    }
}
