package dev.distlock.etcd;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.Interrupts;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Waits for jetcd's futures with a time limit and turns failures into {@link
 * LockBackendException}s that name the key and the server. jetcd itself retries an unreachable
 * server for a long time, so these limits keep a caller within its wait time.
 */
final class EtcdRequests {

    private static final long NO_LEADER_PAUSE_MILLIS = 20;

    private final String address;
    private final Duration requestTimeout;
    /** How far past its wait time an acquisition may run (contract 8). */
    private final long answerBudgetNanos;

    EtcdRequests(String address, Duration requestTimeout, Duration answerBudget) {
        this.address = address;
        this.requestTimeout = requestTimeout;
        this.answerBudgetNanos = answerBudget.toNanos();
    }

    String address() {
        return address;
    }

    /**
     * The {@link System#nanoTime()} no request of an acquisition may outlive. It is the wait time
     * plus four fifths of the answer budget, or {@link Long#MAX_VALUE} for a wait without end.
     */
    long cutoff(Deadline deadline) {
        return deadline.isForever()
                ? Long.MAX_VALUE
                : System.nanoTime() + deadline.remainingNanos() + answerBudgetNanos / 5 * 4;
    }

    /** The limit of one request of an acquisition, until its cutoff and at most the request timeout. */
    long timeoutBefore(long cutoff) {
        if (cutoff == Long.MAX_VALUE) {
            return requestTimeout.toNanos();
        }
        return Math.max(0, Math.min(requestTimeout.toNanos(), cutoff - System.nanoTime()));
    }

    /** The limit of a request that has no wait time of its own (renew, release). */
    long timeout() {
        return requestTimeout.toNanos();
    }

    /** How long a release waits for its answer (contract 8). An unanswered delete goes on in the background. */
    long releaseTimeout() {
        return Math.min(requestTimeout.toNanos(), answerBudgetNanos);
    }

    /** The answer of {@code request}, waiting at most {@code timeoutNanos}. A refusal for want of a leader is retried. */
    <T> T await(Supplier<CompletableFuture<T>> request, long timeoutNanos, String key, String action)
            throws InterruptedException {
        long end = System.nanoTime() + timeoutNanos;
        while (true) {
            CompletableFuture<T> pending = request.get();
            try {
                return pending.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                pending.cancel(true);
                throw e;
            } catch (TimeoutException e) {
                throw noAnswer(pending, timeoutNanos, key, action, e);
            } catch (ExecutionException e) {
                if (!isNoLeader(e.getCause()) || end - System.nanoTime() <= 0) {
                    throw failed(key, action, e.getCause());
                }
                Thread.sleep(NO_LEADER_PAUSE_MILLIS);
            }
        }
    }

    /** Like {@link #await} but not cut short by an interrupt, so that a release still frees the key. */
    <T> T awaitUninterruptibly(Supplier<CompletableFuture<T>> request, long timeoutNanos, String key, String action) {
        long end = System.nanoTime() + timeoutNanos;
        return Interrupts.cleared(() -> await(request, Math.max(0, end - System.nanoTime()), key, action));
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

    /** The failure with gRPC's status and, where it differs, the server's own words. */
    LockBackendException failed(String key, String action, Throwable cause) {
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

    /** As {@link #failure(String, String, Throwable)}, for a problem without an exception. */
    LockBackendException failure(String key, String problem) {
        return new LockBackendException("etcd", address, key, problem);
    }

    /** True when etcd answered that the lease does not exist (expired or revoked). */
    static boolean isLeaseNotFound(Throwable failure) {
        return hasStatus(failure, Status.Code.NOT_FOUND, ErrorCode.NOT_FOUND, ANY_WORDS);
    }

    /** True for a failure that may pass: no answer, a member out of reach, a leader election, a busy server. */
    static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return true;
            }
            if (t instanceof EtcdException etcd
                    && (etcd.getErrorCode() == ErrorCode.UNAVAILABLE
                            || etcd.getErrorCode() == ErrorCode.DEADLINE_EXCEEDED
                            || etcd.getErrorCode() == ErrorCode.RESOURCE_EXHAUSTED)) {
                return true;
            }
            if (t instanceof StatusRuntimeException grpc
                    && TRANSIENT.contains(grpc.getStatus().getCode())) {
                return true;
            }
        }
        return false;
    }

    private static final java.util.Set<Status.Code> TRANSIENT = java.util.EnumSet.of(
            Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED);

    /** True when the member that answered has no Raft leader (it refuses because of the require-leader header). */
    static boolean isNoLeader(Throwable failure) {
        return hasStatus(failure, Status.Code.UNAVAILABLE, ErrorCode.UNAVAILABLE, "no leader");
    }

    /** For {@link #hasStatus}: whatever the message says. */
    private static final String ANY_WORDS = null;

    private static boolean hasStatus(Throwable failure, Status.Code grpcCode, ErrorCode etcdCode, String words) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            boolean saysIt =
                    words == null || (t.getMessage() != null && t.getMessage().contains(words));
            if (t instanceof EtcdException etcd && etcd.getErrorCode() == etcdCode && saysIt) {
                return true;
            }
            // Some jetcd calls (revoke) hand gRPC's status through unconverted.
            if (t instanceof StatusRuntimeException grpc && grpc.getStatus().getCode() == grpcCode && saysIt) {
                return true;
            }
        }
        return false;
    }
}
