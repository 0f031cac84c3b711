package dev.distlock.test;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/** A lease granted by the {@link TestLockServer}. */
record ControlledLease(String key, String owner, FencingToken token, long grantRequestedAtNanos)
        implements BackendLease {}
