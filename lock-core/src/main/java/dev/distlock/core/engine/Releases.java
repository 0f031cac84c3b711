package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The engine's one release policy and the one way a hold ends ({@link #end}). The policy and its reasons are in
 * {@code docs/internals/engine.md}.
 */
final class Releases<L extends BackendLease> implements AutoCloseable {

    /** How many background releases may wait at once. Past it they are dropped, and the leases end on their own. */
    private static final int MOST_WAITING = 10_000;

    private final LockBackend<L> backend;
    private final LeaseKeeper keeper;
    private final HoldEvents<L> events;
    private final boolean sessions;
    private final ThreadPoolExecutor background;

    /** @param keeper ends lingering holds when their minimum is over and runs calls off the caller's thread */
    Releases(LockBackend<L> backend, LeaseKeeper keeper, HoldEvents<L> events) {
        this.backend = backend;
        this.keeper = keeper;
        this.events = events;
        this.sessions = backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
        this.background =
                new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MOST_WAITING), task -> {
                    Thread thread = new Thread(task, "distlock-" + backend.name() + "-release");
                    thread.setDaemon(true);
                    return thread;
                });
        background.allowCoreThreadTimeOut(true);
    }

    /**
     * At the owner's last release, whether the hold stays on the server until a pending minimum hold ends. When not,
     * the caller ends it now. {@link LeaseEnds#loseIfExpired} has already declared a lease that ran out lost.
     */
    boolean lingers(Hold<L> hold) {
        long end = hold.minimumEndNanos();
        return end != 0 && hold.state() == Hold.State.HELD && linger(hold, end);
    }

    /**
     * Keeps a released hold on the server as a fixed lease until its minimum hold ends. The key's local gate stays
     * taken until then.
     *
     * @return false when it could not, and the caller then releases as usual
     */
    private boolean linger(Hold<L> hold, long endNanos) {
        long start = System.nanoTime();
        long rest = endNanos - start;
        if (rest <= 0) {
            return false;
        }
        Duration lease = Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(rest + 999_999));
        boolean kept;
        try {
            kept = Interrupts.cleared(() -> backend.renew(hold.lease, lease));
        } catch (RuntimeException e) {
            // Reported for the call and again for the linger it ends.
            events.backendError(hold.keyState.fullKey, e);
            events.backendError(hold.keyState.fullKey, e);
            return false;
        }
        if (!kept || !hold.startLingering(Math.min(endNanos, start + lease.toNanos()))) {
            return false;
        }
        keeper.forget(hold.keeping);
        keeper.at(
                hold.keeping,
                LeaseKeeper.Job.TIMER,
                endNanos,
                () -> keeper.run(() -> end(hold, Hold.Ending.MINIMUM_HOLD_OVER)));
        return true;
    }

    /**
     * Ends a released, replaced or closed hold. Frees the key on the server, then the local gate, and stops its
     * lease keeping.
     */
    void end(Hold<L> hold, Hold.Ending ending) {
        Hold.State before = hold.markEnded();
        if (before == null) {
            return;
        }
        // Unlisted before the key is free, and ended before the gate opens (see docs/internals/engine.md).
        events.leaving(hold);
        try {
            onServer(hold, before == Hold.State.LOST, ending);
        } finally {
            try {
                keeper.forget(hold.keeping);
                events.ended(hold);
            } finally {
                hold.freeGate();
            }
        }
    }

    /**
     * At close, leaves a hold that lingers for a minimum hold on the server and ends every other hold now.
     *
     * @return true when the hold lingers on a session backend, where only this registry can end it. The caller then
     *     passes it to {@link #endWhenMinimumOver}.
     */
    boolean atClose(Hold<L> hold) {
        if (hold.state() != Hold.State.LINGERING) {
            end(hold, Hold.Ending.CLOSED);
            return false;
        }
        if (sessions) {
            return true;
        }
        end(hold, Hold.Ending.LEFT_ON_SERVER);
        return false;
    }

    /** After close: ends {@code lingering} holds one by one as their minimum holds end, on this thread. */
    void endWhenMinimumOver(List<Hold<L>> lingering) {
        long now = System.nanoTime();
        lingering.sort(Comparator.comparingLong(hold -> hold.leaseEndNanos() - now));
        for (Hold<L> hold : lingering) {
            long left;
            while ((left = hold.leaseEndNanos() - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
            end(hold, Hold.Ending.MINIMUM_HOLD_OVER);
        }
    }

    /** Frees the key on the server as the release policy says. Only a live hold's failed release throws. */
    private void onServer(Hold<L> hold, boolean wasLost, Hold.Ending ending) {
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
            freed = releaseOnServer(hold);
        } catch (RuntimeException e) {
            events.backendError(hold.keyState.fullKey, e);
            throw e;
        }
        if (!freed) {
            LockEngine.log.warn(
                    "Lock '{}' on {} had already expired when it was released; another owner may have held it"
                            + " meanwhile. Use a longer lease or let the watchdog renew it.",
                    hold.key,
                    events.describe());
        }
    }

    /** Frees a lost hold that the server may still have after a late renewal or a session that came back. */
    private void releaseLost(Hold<L> hold, Hold.Ending ending) {
        boolean freed = quietly(hold);
        if (ending == Hold.Ending.RELEASED) {
            LockEngine.log.warn(
                    freed
                            ? "Released lock '{}' on {} after its lease had been declared lost; the server still had it"
                                    + " (a late renewal kept it) and it is free now."
                            : "Released lock '{}' on {} after its lease was lost; the server no longer had it.",
                    hold.key,
                    events.describe());
        }
    }

    /** Runs the task on the background thread. It is dropped when too many wait or after {@link #close}. */
    void inBackground(Runnable task) {
        try {
            background.execute(task);
        } catch (RejectedExecutionException e) {
            LockEngine.log.debug("Background release dropped on {}: {}", events.describe(), e.getMessage());
        }
    }

    /** Whether background releases are queued or running. */
    boolean busy() {
        return background.getActiveCount() > 0 || !background.getQueue().isEmpty();
    }

    boolean quietly(Hold<L> hold) {
        try {
            return releaseOnServer(hold);
        } catch (RuntimeException e) {
            events.backendError(hold.keyState.fullKey, e);
            LockEngine.log.warn(
                    "Could not release lock '{}' on {}; it frees itself when its lease ends: {}",
                    hold.key,
                    events.describe(),
                    e.getMessage());
            return false;
        }
    }

    /** Releases on the server with the caller's interrupt flag cleared, and sets it again afterwards. */
    private boolean releaseOnServer(Hold<L> hold) {
        boolean interrupted = Thread.interrupted();
        try {
            return backend.release(hold.lease);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits up to {@code bound} for the background releases after {@link #close}. */
    void awaitBackground(Duration bound) {
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
