package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;

/**
 * One granted hold: its queue entry in etcd, the registry's session lease the entry is attached
 * to, and the entry's create revision as the token.
 *
 * @param entry the entry's etcd key
 * @param session the session lease the entry lives on
 */
record EtcdLease(String key, String entry, SessionLease.Session session, FencingToken token, long grantRequestedAtNanos)
        implements BackendLease {}
