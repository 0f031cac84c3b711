package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The transient failures one call meets while its wait lasts, such as a lost connection, a reconnect, a failover under
 * way or a new master still loading. The call tries again after a back-off, and when its wait ends it fails with the
 * last error. Errors that no retry can cure, such as a refused script or a missing permission, end the call at once.
 */
final class RideOut {

    static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** Replies of a server that cannot serve now but will (failover, loading, cluster repair). */
    private static final List<String> PASSING_REFUSALS =
            List.of("READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "BUSY", "NOREPLICAS");

    private final String address;
    private final String key;
    private LockBackendException last;
    private long backoffNanos = FIRST_BACKOFF_NANOS;

    RideOut(String address, String key) {
        this.address = address;
        this.key = key;
    }

    /** True once an attempt failed. Its script may have run, so a call that gives up withdraws what it took. */
    boolean failedBefore() {
        return last != null;
    }

    /**
     * Called after {@code failure}. Sleeps a back-off within the deadline and returns for the next try, or throws when
     * the failure is not transient or the wait is over.
     */
    void failed(LockBackendException failure, Deadline deadline) throws InterruptedException {
        last = failure;
        if (!isTransient(failure) || deadline.hasPassed()) {
            throw giveUp(deadline);
        }
        long pause = Math.min(backoffNanos, deadline.remainingNanos());
        backoffNanos = Math.min(backoffNanos * 2, MAX_BACKOFF_NANOS);
        TimeUnit.NANOSECONDS.sleep(pause);
        if (deadline.hasPassed()) {
            throw giveUp(deadline);
        }
    }

    /** An attempt was answered, so the next failure starts a fresh back-off. */
    void answered() {
        backoffNanos = FIRST_BACKOFF_NANOS;
    }

    /** The failure to report when the wait ended while the last attempt had failed. */
    LockBackendException giveUp(Deadline deadline) {
        if (!isTransient(last) || !deadline.hasPassed()) {
            return last; // an error no retry cures, as it came
        }
        return new LockBackendException(
                "redis",
                address,
                key,
                "Redis was still unavailable when the wait ended; last error: " + last.getMessage(),
                last);
    }

    static boolean isTransient(LockBackendException failure) {
        Throwable cause = PendingReply.unwrap(failure.getCause() == null ? failure : failure.getCause());
        if (!(cause instanceof RedisCommandExecutionException refused)) {
            return true; // not connected, no answer in time or connection reset, and the server may come back
        }
        String message = String.valueOf(refused.getMessage());
        return PASSING_REFUSALS.stream().anyMatch(message::startsWith);
    }
}
