package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * One granted hold, with its queue entry and session lease. The entry's create revision is the token.
 *
 * @param entry the entry's etcd key
 * @param value the entry's value, unique to this hold, which deletes compare
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
