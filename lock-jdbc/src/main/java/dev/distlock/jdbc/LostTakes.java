package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees what an acquisition may have taken although it gave up: a take whose answer was lost may
 * have committed. Inline while the caller's deadline leaves time for it; otherwise, or when that
 * fails too, on one daemon thread per registry, retried until the take's lease would have ended anyway.
 */
final class LostTakes implements AutoCloseable {

    /** Deletes only the rows of the one acquisition that gave up (its owner is unique per hold). */
    @FunctionalInterface
    interface Release {
        void run(CallTimeout timeout);
    }

    /** A freeing statement run inline needs at least this much of the caller's wait time. */
    private static final Duration MIN_INLINE = Duration.ofMillis(100);

    private static final Duration RETRY = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(LostTakes.class);

    // The thread starts with the first task: a registry whose takes never get lost has none.
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-free");
        thread.setDaemon(true);
        return thread;
    });

    LostTakes() {
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Frees inline when the deadline leaves time, else (or when that fails, added to {@code failure}) later. */
    void free(String key, long leaseMicros, Deadline deadline, RuntimeException failure, Release release) {
        long leaseEnds = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(leaseMicros);
        if (deadline.remaining().compareTo(MIN_INLINE) >= 0) {
            try {
                release.run(CallTimeout.until(deadline, RETRY));
                return;
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        freeUntil(key, leaseEnds, release);
    }

    /** As {@link #free}, in the background only: for an acquisition that gives up without a failure to report. */
    void freeLater(String key, long leaseMicros, Release release) {
        freeUntil(key, System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(leaseMicros), release);
    }

    private void freeUntil(String key, long leaseEndsNanos, Release release) {
        if (executor.isShutdown()) {
            return;
        }
        executor.execute(() -> {
            try {
                release.run(CallTimeout.of(RETRY));
            } catch (RuntimeException e) {
                if (System.nanoTime() - leaseEndsNanos < 0 && !executor.isShutdown()) {
                    log.debug("Could not yet free what a failed acquisition of '{}' may hold; retrying", key, e);
                    executor.schedule(
                            () -> freeUntil(key, leaseEndsNanos, release), RETRY.toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        });
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
