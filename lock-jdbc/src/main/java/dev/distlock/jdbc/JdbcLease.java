package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import java.time.Duration;

/** A taken row, with its key, owner, fence and the lease it was taken for. */
record JdbcLease(String key, String owner, FencingToken token, long grantRequestedAtNanos, Duration leaseTime)
        implements BackendLease {}
