package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/**
 * A lock granted by Redis (one server, a Cluster, or a Redlock majority), with the key and owner
 * already encoded for the renewals and the release.
 */
record RedisLease(LockKey lockKey, byte[] owner, FencingToken token, long grantRequestedAtNanos)
        implements BackendLease {

    @Override
    public String key() {
        return lockKey.key();
    }
}
