package dev.distlock.fencing.jdbc;

import dev.distlock.core.fencing.FencingClaim;
import java.util.Optional;

/**
 * What one fence-table operation does, for its messages. An action on a resource, on behalf of a claim when there is
 * one.
 */
record FenceOperation(String action, String resource, Optional<FencingClaim> claim) {

    /** An operation on {@code resource} on behalf of {@code claim}. */
    static FenceOperation of(String action, String resource, FencingClaim claim) {
        return new FenceOperation(action, resource, Optional.of(claim));
    }

    /** An operation on {@code resource} that checks no claim. */
    static FenceOperation unclaimed(String action, String resource) {
        return new FenceOperation(action, resource, Optional.empty());
    }

    String describe() {
        return "Fence store: " + action + " resource '" + resource + "'"
                + claim.map(c -> " with token " + c.token() + " of lock '" + c.lockKey() + "' (" + c.backend()
                                + " backend)")
                        .orElse("");
    }
}
