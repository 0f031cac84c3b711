package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/**
 * One granted hold: its queue entry in etcd, the etcd lease the entry is attached to, and the
 * entry's create revision as the token.
 *
 * @param entry the entry's etcd key
 * @param leaseId the etcd lease of this hold alone
 */
record EtcdLease(String key, String entry, long leaseId, FencingToken token, long grantRequestedAtNanos)
        implements BackendLease {}
