package dev.distlock.core.fencing;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.util.Objects;

/**
 * What a holder shows a fenced resource, which is the token of its hold and the lock key and backend that issued
 * it. Tokens are comparable only within one lock key of one backend, so a resource
 * checks all three.
 *
 * @param backend the backend's name, as {@link LockRegistry#backend()} gives it
 * @param lockKey the lock key the token belongs to, as the application passed it to {@code obtain}
 * @param token the hold's fencing token
 */
public record FencingClaim(String backend, String lockKey, FencingToken token) {

    public FencingClaim {
        Objects.requireNonNull(token, "token");
        if (backend == null || backend.isBlank()) {
            throw new IllegalArgumentException("A fencing claim for lock '" + lockKey + "' needs the backend's name");
        }
        if (lockKey == null || lockKey.isBlank()) {
            throw new IllegalArgumentException(
                    "A fencing claim of the " + backend + " backend needs the lock key its token belongs to");
        }
    }

    /** The claim of {@code handle}, a hold of a lock obtained from {@code registry}. */
    public static FencingClaim of(LockRegistry registry, LockHandle handle) {
        return new FencingClaim(registry.backend(), handle.key(), handle.token());
    }
}
