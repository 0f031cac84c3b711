package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * One granted hold: its queue entry in etcd, the registry's session lease the entry is attached
 * to, and the entry's create revision as the token.
 *
 * @param entry the entry's etcd key
 * @param value the entry's value, unique to this hold: deletes compare it, so that a late delete
 *     never removes a later entry of the same name
 * @param session the session lease the entry lives on
 */
record EtcdLease(
        String key,
        ByteSequence entry,
        ByteSequence value,
        Session session,
        FencingToken token,
        long grantRequestedAtNanos)
        implements BackendLease {

    String entryName() {
        return entry.toString(StandardCharsets.UTF_8);
    }
}
