package dev.distlock.etcd;

import dev.distlock.core.spi.OwnerId;
import dev.distlock.core.spi.ReadWriteOwners;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The write holds of one registry's threads, by key and thread, so that the read side can tell
 * that the thread asking for a key's read lock holds its write lock (downgrade). Holds that
 * belong to a handle (thread 0) are never recorded: they are never a downgrade.
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
