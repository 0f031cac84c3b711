package dev.distlock.core.spi;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The registry's small timer pool: lease renewals and the end of fixed session leases. */
final class Watchdog {

    private final ScheduledThreadPoolExecutor executor;

    Watchdog(String backend) {
        AtomicInteger threads = new AtomicInteger();
        executor = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "distlock-" + backend + "-watchdog-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    Future<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    void close() {
        executor.shutdownNow();
    }
}
