package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work on the table that no caller waits for, on one daemon thread per registry: sweeping rows
 * nobody released; freeing the rows of acquisitions whose outcome was lost is left to {@link LostTakes}.
 */
final class TableUpkeep implements AutoCloseable {

    /** Rows one sweep statement deletes at most, so that no sweep holds many row locks at once. */
    static final int SWEEP_BATCH = 1000;

    /** Sweep statements in one round at most; the rest waits for the next round. */
    private static final int SWEEP_ROUNDS = 100;

    private static final Logger log = LoggerFactory.getLogger(TableUpkeep.class);

    private final LockTable table;
    private final String address;
    private final LostTakes lostTakes;
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-upkeep");
        thread.setDaemon(true);
        return thread;
    });

    TableUpkeep(LockTable table, String address, Duration sweepInterval, LostTakes lostTakes) {
        this.table = table;
        this.address = address;
        this.lostTakes = lostTakes;
        executor.setRemoveOnCancelPolicy(true);
        long period = sweepInterval.toNanos();
        // Registries started together sweep at different times.
        long first = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
        executor.scheduleWithFixedDelay(this::sweep, first, period, TimeUnit.NANOSECONDS);
    }

    /** Frees the row an acquisition may have taken although it failed (see {@link LostTakes#free}). */
    void free(LockRow row, Deadline deadline, RuntimeException failure) {
        lostTakes.free(row.key(), row.leaseMicros(), deadline, failure, release(row));
    }

    /** As {@link #free}, in the background only: for an attempt that gives up without a failure to report. */
    void freeLater(LockRow row) {
        lostTakes.freeLater(row.key(), row.leaseMicros(), release(row));
    }

    private LostTakes.Release release(LockRow row) {
        return timeout -> table.release(row.key(), row.owner(), timeout);
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
