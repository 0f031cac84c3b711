package dev.distlock.core.fencing;

import java.util.Optional;

/**
 * Keeps the fence of each resource and applies {@link FenceRule} to it atomically. Implementations keep fences in
 * memory (one instance), in SQL (inside the caller's transaction) or in Redis.
 */
public interface FenceStore {

    /**
     * Admits {@code claim} as a writer of {@code resource}, raising the resource's highest token atomically. Call it
     * before the write and before any read the write depends on.
     *
     * @return the fence after the write was admitted
     * @throws StaleTokenException when a newer holder already registered with the resource
     * @throws FenceMismatchException when another lock key or backend guards the resource
     */
    Fence admitWrite(String resource, FencingClaim claim);

    /**
     * Checks that {@code claim} may read {@code resource} as current, without raising it.
     *
     * @throws StaleTokenException when a newer holder already registered with the resource
     * @throws FenceMismatchException when another lock key or backend guards the resource
     */
    void admitRead(String resource, FencingClaim claim);

    /** The resource's fence, or empty before its first admitted write. */
    Optional<Fence> fenceOf(String resource);

    /**
     * Moves {@code resource} to a new lock key or backend. Its fence forgets the old guard and accepts {@code claim}
     * and the tokens after it. Only for a deliberate migration, once every
     * writer under the old lock has stopped.
     */
    Fence rebind(String resource, FencingClaim claim);
}
