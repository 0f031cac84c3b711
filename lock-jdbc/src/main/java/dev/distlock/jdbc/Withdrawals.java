package dev.distlock.jdbc;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdraws what an acquisition that gave up may have taken, as a take whose answer was lost may
 * have committed. Inline while the deadline leaves time, else in the background.
 */
final class Withdrawals implements AutoCloseable {

    /** Deletes only the rows of the one acquisition that gave up. True when it found some. */
    @FunctionalInterface
    interface Release {
        boolean run(CallTimeout timeout);
    }

    /** A freeing statement run inline needs at least this much of the caller's wait time. */
    private static final Duration MIN_INLINE = Duration.ofMillis(100);

    private static final Duration RETRY = Duration.ofSeconds(1);

    /** When a free that found nothing is first tried again. */
    private static final Duration RECHECK_FIRST = Duration.ofMillis(250);

    /** The longest pause between two looks for a take that may still commit. */
    private static final Duration RECHECK_LAST = Duration.ofSeconds(4);

    private static final Logger log = LoggerFactory.getLogger(Withdrawals.class);

    // The thread starts with the first task, so a registry whose takes never get lost has none.
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-free");
        thread.setDaemon(true);
        return thread;
    });

    Withdrawals() {
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Frees inline when the deadline leaves time, else (or when that fails, added to {@code failure}) later. */
    void withdraw(String key, long leaseMicros, Deadline deadline, RuntimeException failure, Release release) {
        long leaseEnds = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(leaseMicros);
        if (deadline.remaining().compareTo(MIN_INLINE) >= 0) {
            try {
                if (release.run(CallTimeout.until(deadline, RETRY))) {
                    return;
                }
                recheck(key, leaseEnds, release, RECHECK_FIRST.toNanos());
                return;
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        withdrawUntil(key, leaseEnds, release, RECHECK_FIRST.toNanos());
    }

    /** As {@link #withdraw}, in the background only, for an acquisition that gives up without a failure. */
    void withdrawLater(String key, long leaseMicros, Release release) {
        withdrawUntil(
                key, System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(leaseMicros), release, RECHECK_FIRST.toNanos());
    }

    /** Frees now on the thread, and when that finds nothing, looks again after a growing {@code recheckNanos}. */
    private void withdrawUntil(String key, long leaseEndsNanos, Release release, long recheckNanos) {
        if (executor.isShutdown()) {
            return;
        }
        executor.execute(() -> {
            try {
                if (!release.run(CallTimeout.of(RETRY))) {
                    recheck(key, leaseEndsNanos, release, recheckNanos);
                }
            } catch (RuntimeException e) {
                if (System.nanoTime() - leaseEndsNanos < 0 && !executor.isShutdown()) {
                    log.debug("Could not yet free what a failed acquisition of '{}' may hold; retrying", key, e);
                    executor.schedule(
                            () -> withdrawUntil(key, leaseEndsNanos, release, recheckNanos),
                            RETRY.toNanos(),
                            TimeUnit.NANOSECONDS);
                }
            }
        });
    }

    /** Looks again after {@code pauseNanos}, unless the take's lease ends first. */
    private void recheck(String key, long leaseEndsNanos, Release release, long pauseNanos) {
        if (System.nanoTime() + pauseNanos - leaseEndsNanos >= 0 || executor.isShutdown()) {
            return;
        }
        long next = Math.min(pauseNanos * 2, RECHECK_LAST.toNanos());
        executor.schedule(() -> withdrawUntil(key, leaseEndsNanos, release, next), pauseNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
