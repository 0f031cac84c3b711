package dev.distlock.core.engine;

import dev.distlock.core.spi.BackendLease;

/**
 * What the rest of the engine hears of a hold's life. The stages get it so that neither a stage nor a {@link Hold}
 * calls up into {@link LockEngine}. The engine's implementation is {@link EngineEvents}, and a test passes its own.
 */
interface HoldEvents<L extends BackendLease> {

    /** The backend's name and where its server is, for messages. */
    String describe();

    /** A call to the backend for {@code fullKey} failed. */
    void backendError(String fullKey, RuntimeException error);

    /** The hold was just declared lost. Its local gate is free and its lease no longer kept. */
    void lost(Hold<L> hold, String reason);

    /** The hold is ending. It is no longer its owner's, and its key is about to be freed. */
    void leaving(Hold<L> hold);

    /** The hold has ended on the server (or was left there). Its local gate is freed next. */
    void ended(Hold<L> hold);

    /** Runs an owner's lease-loss callback, on this thread when {@code now} and else on another. */
    void callback(Hold<L> hold, Runnable callback, boolean now);
}
