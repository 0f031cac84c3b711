package dev.distlock.core.fencing;

import dev.distlock.core.LockException;

/**
 * A resource was shown a token of another lock key or another backend than the one that guards it.
 * Tokens of different keys or backends are not comparable, so the write is refused. Moving a
 * resource to a new lock key or backend is a deliberate step ({@link FenceStore#rebind}).
 */
public class FenceMismatchException extends LockException {

    private final Fence fence;
    private final FencingClaim claim;

    public FenceMismatchException(Fence fence, FencingClaim claim) {
        super("Resource '" + fence.resource() + "' is guarded by lock '" + fence.lockKey() + "' on the "
                + fence.backend() + " backend, but was shown a token of lock '" + claim.lockKey() + "' on the "
                + claim.backend() + " backend; tokens of different keys or backends are not comparable. "
                + "If the resource moved to a new lock key or backend on purpose, stop the old writers and call "
                + "FenceStore.rebind(\"" + fence.resource() + "\", ...) once (see docs/fencing.md).");
        this.fence = fence;
        this.claim = claim;
    }

    public Fence fence() {
        return fence;
    }

    public FencingClaim claim() {
        return claim;
    }
}
