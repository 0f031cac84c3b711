package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/** A lock granted by Redis (one server, a Cluster, or a Redlock majority). */
record RedisLease(String key, RedisKeys keys, String owner, FencingToken token, long grantRequestedAtNanos)
        implements BackendLease {}
