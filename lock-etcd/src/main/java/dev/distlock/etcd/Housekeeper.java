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
 * The backend's one daemon thread. It runs the keep-alives, ends holds not renewed in time, and
 * retries clean-ups (a withdrawal, a revoke) the caller's thread could not finish.
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
     * Starts {@code cleanup} and waits up to {@code waitNanos} for it, even when interrupted. After
     * that it is retried in the background while {@code stillNeeded}. A lease already gone counts
     * as success.
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
