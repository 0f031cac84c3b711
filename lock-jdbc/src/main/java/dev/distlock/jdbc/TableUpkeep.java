package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work on the table that no caller waits for, on one daemon thread per registry. It sweeps
 * rows nobody released and passes on wake-ups. {@link Withdrawals} withdraws lost takes.
 */
final class TableUpkeep implements AutoCloseable {

    /** The channel of a registry that is in no queue. */
    private static final String NOT_QUEUED = null;

    /** Rows one sweep statement deletes at most, so that no sweep holds many row locks at once. */
    static final int SWEEP_BATCH = 1000;

    /** Sweep statements in one round at most. The rest waits for the next round. */
    private static final int SWEEP_ROUNDS = 100;

    /** The bound of one pass-on of a wake-up (see {@link #leaveQueue}). */
    private static final Duration PASS_ON_CALL = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(TableUpkeep.class);

    private final LockTable table;
    private final String address;
    private final Withdrawals withdrawals;
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-upkeep");
        thread.setDaemon(true);
        return thread;
    });

    TableUpkeep(LockTable table, String address, Duration sweepInterval, Withdrawals withdrawals) {
        this.table = table;
        this.address = address;
        this.withdrawals = withdrawals;
        executor.setRemoveOnCancelPolicy(true);
        long period = sweepInterval.toNanos();
        // Registries started together sweep at different times.
        long first = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
        executor.scheduleWithFixedDelay(this::sweep, first, period, TimeUnit.NANOSECONDS);
    }

    /** Withdraws the row an acquisition may have taken although it failed. */
    void withdraw(LockRow row, Deadline deadline, RuntimeException failure) {
        withdrawals.withdraw(row.key(), row.leaseMicros(), deadline, failure, release(row));
    }

    /** As {@link #withdraw}, in the background only, for an attempt that gives up without a failure. */
    void withdrawLater(LockRow row) {
        withdrawals.withdrawLater(row.key(), row.leaseMicros(), release(row));
    }

    /**
     * Takes {@code channel} off the key's queue, unless this registry still has waiters of the key,
     * and wakes the next registry if the key is free. A null channel only passes a wake-up on.
     */
    void leaveQueue(String key, String channel) {
        passOn(key, channel);
    }

    /** Passes on a wake-up that none of this registry's waiters took. */
    void passOnWakeUp(String key) {
        passOn(key, NOT_QUEUED);
    }

    private void passOn(String key, String channel) {
        try {
            executor.execute(() -> {
                try {
                    table.passOn(key, channel, CallTimeout.of(PASS_ON_CALL));
                } catch (RuntimeException e) {
                    log.debug(
                            "Passing on the wake-up of '{}' on {} failed; the next waiter finds the key by polling",
                            key,
                            address,
                            e);
                }
            });
        } catch (RejectedExecutionException closed) {
            // The registry is closing. The queue lapses by itself.
        }
    }

    private Withdrawals.Release release(LockRow row) {
        return timeout -> table.freeLost(row.key(), row.owner(), timeout);
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
