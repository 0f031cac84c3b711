package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Interrupts;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one release policy of the engine: how a hold's server-side lock is freed when the hold
 * ends, and what the caller hears of a failure. Releases of holds that are already lost run in
 * the background, so that a release in a {@code finally} never waits for an unreachable server.
 */
final class Releases<L extends BackendLease> implements AutoCloseable {

    /**
     * How many background releases may wait at once; past it they are dropped, which costs only
     * time: a lost hold's entry on the server ends with its lease or session anyway.
     */
    private static final int MOST_WAITING = 10_000;

    private final LockEngine<L> engine;
    private final ThreadPoolExecutor background;

    Releases(LockEngine<L> engine) {
        this.engine = engine;
        this.background =
                new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MOST_WAITING), task -> {
                    Thread thread = new Thread(task, "distlock-" + engine.backend.name() + "-release");
                    thread.setDaemon(true);
                    return thread;
                });
        background.allowCoreThreadTimeOut(true);
    }

    /**
     * The one release policy. A live hold's release that fails is reported to the caller (after
     * the local state was cleared); a lost hold's release goes to the background and never throws;
     * one at close never throws. The caller's interrupt flag is cleared for the call and set again
     * after it.
     */
    void onServer(Hold<L> hold, boolean wasLost, Hold.Ending ending) {
        if (ending == Hold.Ending.LEFT_ON_SERVER) {
            return;
        }
        if (wasLost) {
            inBackground(() -> releaseLost(hold, ending));
            return;
        }
        if (ending == Hold.Ending.CLOSED || ending == Hold.Ending.MINIMUM_HOLD_OVER) {
            quietly(hold);
            return;
        }
        boolean freed;
        try {
            freed = uninterrupted(hold);
        } catch (RuntimeException e) {
            engine.backendError(hold.keyState.fullKey, e);
            throw e;
        }
        if (!freed) {
            LockEngine.log.warn(
                    "Lock '{}' on {} had already expired when it was released; another owner may have held it"
                            + " meanwhile. Use a longer lease or let the watchdog renew it.",
                    hold.key,
                    engine.describe());
        }
    }

    /** The server may still have a lost hold (a late renewal, a session that came back): free it, never another's. */
    private void releaseLost(Hold<L> hold, Hold.Ending ending) {
        boolean freed = quietly(hold);
        if (ending == Hold.Ending.RELEASED) {
            LockEngine.log.warn(
                    freed
                            ? "Released lock '{}' on {} after its lease had been declared lost; the server still had it"
                                    + " (a late renewal kept it) and it is free now."
                            : "Released lock '{}' on {} after its lease was lost; the server no longer had it.",
                    hold.key,
                    engine.describe());
        }
    }

    /** Runs {@code task} on the background thread; dropped when too many wait or after {@link #close}. */
    void inBackground(Runnable task) {
        try {
            background.execute(task);
        } catch (RejectedExecutionException e) {
            LockEngine.log.debug("Background release dropped on {}: {}", engine.describe(), e.getMessage());
        }
    }

    /** Whether background releases are queued or running. */
    boolean busy() {
        return background.getActiveCount() > 0 || !background.getQueue().isEmpty();
    }

    boolean quietly(Hold<L> hold) {
        try {
            return uninterrupted(hold);
        } catch (RuntimeException e) {
            engine.backendError(hold.keyState.fullKey, e);
            LockEngine.log.warn(
                    "Could not release lock '{}' on {}; it frees itself when its lease ends: {}",
                    hold.key,
                    engine.describe(),
                    e.getMessage());
            return false;
        }
    }

    /** Releases on the server with the caller's interrupt flag cleared, and sets it again afterwards. */
    private boolean uninterrupted(Hold<L> hold) {
        return Interrupts.cleared(() -> engine.backend.release(hold.lease));
    }

    /** Waits up to {@code bound} for the background releases after {@link #close}. */
    void awaitBackground(java.time.Duration bound) {
        try {
            background.awaitTermination(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Queued releases still run; nothing new is taken. */
    @Override
    public void close() {
        background.shutdown();
    }
}
