package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One attempt's wake-up, from the watches on the nodes ahead of it and from changes of the connection. Deletions are
 * recorded on ZooKeeper's event thread. The attempt's thread wakes only for the deletion of a node it awaits, or for
 * anything else, after which it reads the queue again.
 */
final class Waiter implements Watcher {

    private final Semaphore signals = new Semaphore(0);
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean disturbed = new AtomicBoolean();
    private volatile Set<String> awaited = Set.of();

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.NodeDeleted && event.getPath() != null) {
            String node = ZKPaths.getNodeFromPath(event.getPath());
            deleted.add(node);
            if (!awaited.contains(node)) {
                return;
            }
        } else {
            // A connection change, or a watched node that changed without going (its watch is used up).
            disturbed.set(true);
        }
        signals.release();
    }

    void wake() {
        disturbed.set(true);
        signals.release();
    }

    /** True when woken before {@code nanos} passed. Drains further wake-ups, which the caller's next read covers. */
    boolean await(long nanos) throws InterruptedException {
        boolean woken = signals.tryAcquire(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        signals.drainPermits();
        return woken;
    }

    /**
     * Waits until one of {@code nodes} (children of the key's node) is reported deleted, or something else calls for a
     * fresh read of the queue. False when neither came within {@code nanos}.
     */
    boolean awaitDeletionOfAny(Set<String> nodes, long nanos) throws InterruptedException {
        awaited = Set.copyOf(nodes);
        // Set before looking, so that a deletion reported meanwhile either shows here or wakes the wait below.
        if (disturbed.get() || nodes.stream().anyMatch(deleted::contains)) {
            signals.drainPermits();
            return true;
        }
        return await(nanos);
    }

    /** Whether anything but a reported deletion woke it since last asked. Then the queue must be read again. */
    boolean takeDisturbance() {
        return disturbed.getAndSet(false);
    }

    /** {@code queue} without the nodes reported deleted. */
    List<String> withoutDeleted(List<String> queue) {
        List<String> left = new ArrayList<>(queue.size());
        for (String node : queue) {
            if (!deleted.contains(node)) {
                left.add(node);
            }
        }
        return left;
    }

    /** Takes {@code nodes}, found gone when their watches were to be set, as reported deleted. */
    void deleted(Set<String> nodes) {
        deleted.addAll(nodes);
    }
}
