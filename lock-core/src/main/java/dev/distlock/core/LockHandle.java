package dev.distlock.core;

/**
 * One hold of a lock. Closing it releases that hold; the key is freed when the owner's
 * last hold is closed. Closing twice is harmless.
 */
public interface LockHandle extends AutoCloseable {

    /** The key as the caller named it (without the registry's key prefix). */
    String key();

    /** The fencing token of this hold; reentrant holds of one owner share it. */
    FencingToken token();

    /**
     * False once the hold was released or its lease is known to be lost (renewal failed,
     * fixed lease ran out, session expired). A holder that finds it false must stop
     * writing; the token lets the resource refuse it if it does not.
     */
    boolean isValid();

    /**
     * Runs {@code callback} once when this hold's lease is known lost (renewal refused or
     * failed past the lease, fixed lease ran out, session expired, registry closed while held),
     * never on a normal release. Added after the loss, it runs at once. Callbacks run on a
     * registry thread and must not block.
     */
    void onLost(Runnable callback);

    /** Releases this hold. Never throws because the lease was lost; see DESIGN.md. */
    @Override
    void close();
}
