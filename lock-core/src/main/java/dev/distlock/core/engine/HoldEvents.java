package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;

/**
 * What the rest of the engine hears of a hold's life, handed to the stages that decide it
 * ({@link LeaseEnds}, {@link Releases}), so that neither a stage nor a {@link Hold} calls up into
 * {@link LockEngine}. The engine's implementation is {@link EngineEvents}; a test passes its own.
 */
interface HoldEvents<L extends BackendLease> {

    /** The backend for messages: its name and where its server is. */
    String describe();

    /** A call to the backend for {@code fullKey} failed. */
    void backendError(String fullKey, RuntimeException error);

    /** {@code hold} was just declared lost for {@code reason}; its local gate is free and its lease no longer kept. */
    void lost(Hold<L> hold, String reason);

    /** {@code hold} is ending: it is no longer its owner's, and its key is about to be freed. */
    void leaving(Hold<L> hold);

    /** {@code hold} has ended: freed on the server (or left there); its local gate is freed next. */
    void ended(Hold<L> hold);

    /** Runs an owner's lease-loss callback of {@code hold}: on this thread when {@code now}, else on another. */
    void callback(Hold<L> hold, Runnable callback, boolean now);
}
