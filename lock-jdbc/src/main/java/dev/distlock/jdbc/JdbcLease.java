package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import java.time.Duration;

/** A taken row: the key, the owner written into it, the fence it got and the lease it was taken for. */
record JdbcLease(String key, String owner, FencingToken token, long grantRequestedAtNanos, Duration leaseTime)
        implements BackendLease {}
