package dev.distlock.etcd;

import dev.distlock.core.spi.OwnerId;
import dev.distlock.core.spi.ReadWriteOwners;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The write holds of one registry's threads, so that the read side can tell a downgrade. Holds of
 * a handle (thread 0) are never a downgrade and are not recorded.
 */
final class ThreadWriteHolds {

    private final Map<Holder, EtcdLease> byHolder = new ConcurrentHashMap<>();
    private final Map<EtcdLease, Holder> byLease = new ConcurrentHashMap<>();

    void granted(OwnerId owner, EtcdLease lease) {
        if (owner.thread() == 0) {
            return;
        }
        Holder holder = new Holder(lease.key(), ReadWriteOwners.threadPrefix(owner));
        byLease.put(lease, holder);
        byHolder.put(holder, lease);
    }

    void released(EtcdLease lease) {
        Holder holder = byLease.remove(lease);
        if (holder != null) {
            byHolder.remove(holder, lease);
        }
    }

    /** The write hold of {@code owner}'s thread on {@code key}, null when it has none. */
    EtcdLease heldBy(OwnerId owner, String key) {
        if (owner.thread() == 0) {
            return null;
        }
        return byHolder.get(new Holder(key, ReadWriteOwners.threadPrefix(owner)));
    }

    private record Holder(String key, String thread) {}
}
