package dev.distlock.etcd;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend's one daemon thread: the session lease's keep-alives, the end of holds that were
 * not renewed in time, and clean-ups that could not finish on the caller's thread. A clean-up
 * (withdrawing a queue entry, revoking a lease) is retried until it succeeds or is no longer
 * needed, so that nothing a caller gave up on stays queued in etcd, holding others up, for
 * longer than it takes to reach etcd again.
 */
final class Housekeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Housekeeper.class);
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long LAST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ScheduledThreadPoolExecutor executor;
    private final long attemptTimeoutNanos;

    Housekeeper(long attemptTimeoutNanos) {
        this.attemptTimeoutNanos = attemptTimeoutNanos;
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "distlock-etcd-housekeeper");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    Future<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    void every(Runnable task, long periodNanos) {
        executor.scheduleWithFixedDelay(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Starts {@code cleanup} and waits for it up to {@code waitNanos} on the caller's thread, also
     * when that thread is interrupted (its interrupt flag stays set); if it has not succeeded by
     * then, it goes on in the background, retried with back-off while {@code stillNeeded} says so.
     * An answer that the lease is already gone counts as success.
     */
    void finish(String what, Supplier<CompletableFuture<?>> cleanup, long waitNanos, BooleanSupplier stillNeeded) {
        CompletableFuture<?> first = attempt(cleanup);
        boolean interrupted = Thread.interrupted();
        try {
            first.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
            return;
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (ExecutionException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                return;
            }
        } catch (TimeoutException e) {
            // goes on in the background
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        followUp(what, cleanup, first, stillNeeded, FIRST_RETRY_NANOS);
    }

    private void followUp(
            String what,
            Supplier<CompletableFuture<?>> cleanup,
            CompletableFuture<?> pending,
            BooleanSupplier stillNeeded,
            long backoffNanos) {
        pending.whenComplete((result, failure) -> {
            if (failure == null || EtcdRequests.isLeaseNotFound(failure) || executor.isShutdown()) {
                return;
            }
            if (!stillNeeded.getAsBoolean()) {
                log.debug("Gave up {}: no longer needed", what);
                return;
            }
            log.debug("{} failed; retrying in {} ms", what, TimeUnit.NANOSECONDS.toMillis(backoffNanos), failure);
            try {
                schedule(
                        () -> followUp(
                                what,
                                cleanup,
                                attempt(cleanup),
                                stillNeeded,
                                Math.min(LAST_RETRY_NANOS, backoffNanos * 2)),
                        backoffNanos);
            } catch (RuntimeException closed) {
                log.debug("Could not retry {}: the registry is closed", what);
            }
        });
    }

    private CompletableFuture<?> attempt(Supplier<CompletableFuture<?>> cleanup) {
        try {
            return cleanup.get().orTimeout(attemptTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
