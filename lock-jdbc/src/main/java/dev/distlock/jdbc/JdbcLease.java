package dev.distlock.jdbc;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/** A taken row: the key, the owner written into it, and the fence it got. */
record JdbcLease(String key, String owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}
