package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work on the table that no caller waits for, on one daemon thread per registry: freeing the
 * rows of acquisitions whose outcome was lost, and sweeping rows nobody released.
 */
final class TableUpkeep implements AutoCloseable {

    /** Rows one sweep statement deletes at most, so that no sweep holds many row locks at once. */
    static final int SWEEP_BATCH = 1000;

    /** Sweep statements in one round at most; the rest waits for the next round. */
    private static final int SWEEP_ROUNDS = 100;

    /** A freeing statement run inline needs at least this much of the caller's wait time. */
    private static final Duration MIN_INLINE = Duration.ofMillis(100);

    private static final Duration RETRY = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(TableUpkeep.class);

    private final LockTable table;
    private final String address;
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-upkeep");
        thread.setDaemon(true);
        return thread;
    });

    TableUpkeep(LockTable table, String address, Duration sweepInterval) {
        this.table = table;
        this.address = address;
        executor.setRemoveOnCancelPolicy(true);
        long period = sweepInterval.toNanos();
        // Registries started together sweep at different times.
        long first = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
        executor.scheduleWithFixedDelay(this::sweep, first, period, TimeUnit.NANOSECONDS);
    }

    /**
     * Frees the row an acquisition may have taken although it failed: its statement may have
     * committed before the answer was lost. Inline while the caller's deadline leaves time for
     * it; otherwise, or when that fails too, in the background, retried until the attempt's lease
     * would have ended anyway. Only the attempt's own owner is ever touched.
     */
    void free(Attempt attempt, Deadline deadline, RuntimeException failure) {
        long leaseEnds = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(attempt.leaseMicros());
        if (deadline.remaining().compareTo(MIN_INLINE) >= 0) {
            try {
                table.release(attempt.key(), attempt.owner(), CallTimeout.until(deadline, RETRY));
                return;
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        freeLater(attempt, leaseEnds);
    }

    /** As {@link #free}, in the background only: for an attempt that gives up without a failure to report. */
    void freeLater(Attempt attempt) {
        freeLater(attempt, System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(attempt.leaseMicros()));
    }

    private void freeLater(Attempt attempt, long leaseEndsNanos) {
        if (executor.isShutdown()) {
            return;
        }
        executor.execute(() -> {
            try {
                table.release(attempt.key(), attempt.owner(), CallTimeout.of(RETRY));
            } catch (RuntimeException e) {
                if (System.nanoTime() - leaseEndsNanos < 0 && !executor.isShutdown()) {
                    log.debug("Could not yet free the row of a failed acquisition of '{}'; retrying", attempt.key(), e);
                    executor.schedule(() -> freeLater(attempt, leaseEndsNanos), RETRY.toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        });
    }

    /** Deletes rows left free or expired whose fence the database clock has passed, in bounded batches. */
    private void sweep() {
        try {
            for (int round = 0; round < SWEEP_ROUNDS; round++) {
                if (table.sweep(SWEEP_BATCH, CallTimeout.of(Duration.ofSeconds(10))) < SWEEP_BATCH) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            log.debug("Sweeping the lock table on {} failed; the next sweep tries again", address, e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
