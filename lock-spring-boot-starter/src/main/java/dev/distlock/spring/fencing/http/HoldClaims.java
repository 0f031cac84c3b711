package dev.distlock.spring.fencing.http;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.spring.LockContext;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The claim of the hold a call is made under: the handle from {@link LockContext} (or the Reactor
 * context) and the backend of the registry it came from.
 */
final class HoldClaims {

    private final ObjectProvider<LockRegistry> registries;

    HoldClaims(ObjectProvider<LockRegistry> registries) {
        this.registries = registries;
    }

    /** The claim of the innermost {@code @DistributedLock} hold of this thread, if any. */
    Optional<FencingClaim> ofThread() {
        return LockContext.currentHandle().map(this::claim);
    }

    FencingClaim claim(LockHandle handle) {
        LockRegistry unique = registries.getIfUnique();
        if (unique != null) {
            return FencingClaim.of(unique, handle);
        }
        // Several registries: the one that lists this hold issued its token.
        List<LockRegistry> all = registries.orderedStream().toList();
        for (LockRegistry registry : all) {
            boolean lists = registry.holds().stream()
                    .anyMatch(hold ->
                            hold.key().equals(handle.key()) && hold.token().equals(handle.token()));
            if (lists) {
                return FencingClaim.of(registry, handle);
            }
        }
        throw new IllegalStateException("Cannot tell which of the " + all.size() + " LockRegistry beans issued the hold"
                + " of lock '" + handle.key() + "' (token " + handle.token() + ") to send it in the "
                + "Distlock-Fence header; mark one registry @Primary or send the header yourself.");
    }
}
