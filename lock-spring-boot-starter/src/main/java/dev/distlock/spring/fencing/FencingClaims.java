package dev.distlock.spring.fencing;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.spring.LockContext;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The claim (backend, lock key, token) of the current distlock hold, to hand a fenced resource by hand, e.g. with
 * {@code FencedUpdate.execute(jdbc, claims.current())}.
 */
public final class FencingClaims {

    private final ObjectProvider<LockRegistry> registries;

    public FencingClaims(ObjectProvider<LockRegistry> registries) {
        this.registries = registries;
    }

    /**
     * The claim of the innermost {@code @DistributedLock} hold on this thread.
     *
     * @throws IllegalStateException outside a {@code @DistributedLock} method, or inside one that holds several
     *     keys
     */
    public FencingClaim current() {
        if (LockContext.currentMultiHandle().isPresent()) {
            throw new IllegalStateException("The innermost @DistributedLock method on thread "
                    + Thread.currentThread().getName() + " holds several keys "
                    + LockContext.currentMultiHandle().get().keys() + ", so it has no one claim: use"
                    + " LockContext.currentMultiHandle().orElseThrow().claim(key) for the resource of one key.");
        }
        return find().orElseThrow(() -> new IllegalStateException("No distlock hold on thread "
                + Thread.currentThread().getName() + " to show a fenced resource: call this inside a"
                + " @DistributedLock method (reactive code: ReactiveLockContext.currentHandle())."));
    }

    /**
     * The claim of the innermost {@code @DistributedLock} hold on this thread, or empty outside one (and inside one
     * that holds several keys).
     */
    public Optional<FencingClaim> find() {
        return LockContext.currentHandle().map(this::of);
    }

    /** The claim of {@code handle}, a hold of one of the application's registries. */
    public FencingClaim of(LockHandle handle) {
        LockRegistry unique = registries.getIfUnique();
        if (unique != null) {
            return FencingClaim.of(unique, handle);
        }
        // With several registries, the one that lists this hold issued its token.
        List<LockRegistry> all = registries.orderedStream().toList();
        for (LockRegistry registry : all) {
            boolean lists = registry.holds().stream()
                    .anyMatch(hold ->
                            hold.key().equals(handle.key()) && hold.token().equals(handle.token()));
            if (lists) {
                return FencingClaim.of(registry, handle);
            }
        }
        throw new IllegalStateException("Cannot tell which of the " + all.size() + " LockRegistry beans issued the"
                + " hold of lock '" + handle.key() + "' (token " + handle.token() + "); mark one registry @Primary.");
    }
}
