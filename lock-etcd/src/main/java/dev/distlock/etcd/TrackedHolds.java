package dev.distlock.etcd;

import dev.distlock.core.spi.LeaseListener;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holds of a registry's {@link Sessions}, each with its own due time. {@link #sweep()} deletes
 * the entries of holds past it, and {@link #checkEntries()} finds holds whose entries are gone.
 */
final class TrackedHolds {

    /** Logged under {@link Sessions}, whose holds these are. */
    private static final Logger log = LoggerFactory.getLogger(Sessions.class);

    /** Entries checked in one transaction. etcd refuses more than 128 operations in one. */
    private static final int CHECKED_PER_REQUEST = 64;

    private final LockQueues queues;
    private final EtcdRequests requests;
    private final Map<EtcdLease, Tracked> holds = new ConcurrentHashMap<>();
    /** No hold is due before this {@link System#nanoTime()}, so a sweep before it finds nothing to do. */
    private final AtomicLong nextDue = new AtomicLong(farAhead());

    TrackedHolds(LockQueues queues, EtcdRequests requests) {
        this.queues = queues;
        this.requests = requests;
    }

    void track(EtcdLease lease, Duration leaseTime, long dueNanos, Runnable deleteEntry, LeaseListener listener) {
        holds.put(lease, new Tracked(leaseTime, dueNanos, deleteEntry, listener));
        nextDue.accumulateAndGet(dueNanos, TrackedHolds::earlier);
    }

    /** The hold's bookkeeping, or null when it is no longer tracked. */
    Tracked get(EtcdLease lease) {
        return holds.get(lease);
    }

    boolean contains(EtcdLease lease) {
        return holds.containsKey(lease);
    }

    boolean remove(EtcdLease lease) {
        return holds.remove(lease) != null;
    }

    /** Moves the hold's due time to {@code dueNanos}. */
    void due(Tracked tracked, long dueNanos) {
        tracked.dueNanos = dueNanos;
        nextDue.accumulateAndGet(dueNanos, TrackedHolds::earlier);
    }

    void forEach(BiConsumer<EtcdLease, Tracked> action) {
        holds.forEach(action);
    }

    /** Every hold on {@code session} is lost, for {@code reason}. */
    void loseAll(Session session, String reason) {
        holds.forEach((lease, tracked) -> {
            if (lease.session() == session && holds.remove(lease, tracked)) {
                tracked.listener.leaseLost(lease, reason);
            }
        });
    }

    /**
     * Checks that the holds' entries are still there with their values, {@value #CHECKED_PER_REQUEST}
     * per transaction. A hold whose entry someone else deleted is lost.
     */
    void checkEntries() {
        if (holds.isEmpty()) {
            return;
        }
        List<EtcdLease> all = new ArrayList<>(holds.keySet());
        for (int from = 0; from < all.size(); from += CHECKED_PER_REQUEST) {
            List<EtcdLease> batch = all.subList(from, Math.min(all.size(), from + CHECKED_PER_REQUEST));
            queues.allHaveValues(
                            batch.stream().map(EtcdLease::entry).toList(),
                            batch.stream().map(EtcdLease::value).toList())
                    .orTimeout(requests.timeout(), TimeUnit.NANOSECONDS)
                    .whenComplete((response, failure) -> {
                        if (failure != null) {
                            log.debug("Could not check that the entries of this registry's holds are there", failure);
                        } else if (!response.isSucceeded()) {
                            loseDeleted(batch, response.getGetResponses());
                        }
                    });
        }
    }

    private void loseDeleted(List<EtcdLease> checked, List<GetResponse> reads) {
        for (int i = 0; i < checked.size() && i < reads.size(); i++) {
            EtcdLease lease = checked.get(i);
            List<KeyValue> found = reads.get(i).getKvs();
            if (!found.isEmpty() && found.get(0).getValue().equals(lease.value())) {
                continue;
            }
            Tracked tracked = holds.get(lease);
            if (tracked != null && holds.remove(lease, tracked)) {
                tracked.listener.leaseLost(
                        lease,
                        "its entry " + lease.entryName()
                                + " was deleted on etcd by someone else (an operator's force-release?)");
            }
        }
    }

    /** Deletes the entries of holds not renewed by their due time. */
    void sweep() {
        long now = System.nanoTime();
        if (nextDue.get() - now > 0) {
            return;
        }
        nextDue.set(farAhead());
        holds.forEach((lease, tracked) -> {
            long due = tracked.dueNanos;
            if (due - now > 0) {
                nextDue.accumulateAndGet(due, TrackedHolds::earlier);
            } else if (holds.remove(lease, tracked)) {
                tracked.deleteEntry.run();
            }
        });
    }

    private static long earlier(long a, long b) {
        return a - b < 0 ? a : b;
    }

    private static long farAhead() {
        return System.nanoTime() + TimeUnit.DAYS.toNanos(365);
    }

    /** One hold's lease time, due time, own lease if any, entry delete, and listener. */
    static final class Tracked {
        final Duration leaseTime;
        volatile long dueNanos;
        volatile boolean onOwnLease;
        volatile long ownLeaseUntil;
        final Runnable deleteEntry;
        final LeaseListener listener;

        Tracked(Duration leaseTime, long dueNanos, Runnable deleteEntry, LeaseListener listener) {
            this.leaseTime = leaseTime;
            this.dueNanos = dueNanos;
            this.deleteEntry = deleteEntry;
            this.listener = listener;
        }
    }
}
