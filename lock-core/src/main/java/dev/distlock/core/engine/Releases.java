package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;

/**
 * The one release policy of the engine: how a hold's server-side lock is freed when the hold
 * ends, and what the caller hears of a failure.
 */
final class Releases<L extends BackendLease> {

    private final LockEngine<L> engine;

    Releases(LockEngine<L> engine) {
        this.engine = engine;
    }

    /**
     * The one release policy. A live hold's release that fails is reported to the caller (after
     * the local state was cleared); a lost hold's release never throws; neither does one at close.
     * The caller's interrupt flag is cleared for the call and set again after it.
     */
    void onServer(Hold<L> hold, boolean wasLost, Hold.Ending ending) {
        if (wasLost || ending == Hold.Ending.CLOSED || ending == Hold.Ending.MINIMUM_HOLD_OVER) {
            boolean freed = quietly(hold);
            if (wasLost && ending == Hold.Ending.RELEASED) {
                LockEngine.log.warn(
                        freed
                                ? "Released lock '{}' on {} after its lease had been declared lost; the server still had it"
                                        + " (a late renewal kept it) and it is free now."
                                : "Released lock '{}' on {} after its lease was lost; the server no longer had it.",
                        hold.key,
                        engine.describe());
            }
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

    private boolean uninterrupted(Hold<L> hold) {
        return uninterrupted(() -> engine.backend.release(hold.lease));
    }

    /** Runs a backend call with the caller's interrupt flag cleared, and sets it again afterwards. */
    static boolean uninterrupted(java.util.function.BooleanSupplier call) {
        boolean interrupted = Thread.interrupted();
        try {
            return call.getAsBoolean();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
