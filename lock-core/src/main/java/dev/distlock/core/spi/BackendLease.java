package dev.distlock.core.spi;

import dev.distlock.core.FencingToken;

/**
 * What a backend returns for a granted lock: the token plus whatever the backend needs to
 * renew and release it (node path, lease id, ...). Implementations are immutable.
 */
public interface BackendLease {

    /** The key as passed to the backend (with the registry's prefix). */
    String key();

    FencingToken token();

    /**
     * {@link System#nanoTime()} read just before sending the request that was granted. The
     * local view of the lease counts from here, so it never outlives the server's. Read it after
     * whatever a first call does once (table set-up, subscriptions, connecting, loading scripts):
     * that is not the lease's time (contract 4).
     */
    long grantRequestedAtNanos();
}
