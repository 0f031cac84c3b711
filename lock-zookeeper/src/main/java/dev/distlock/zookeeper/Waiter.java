package dev.distlock.zookeeper;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One attempt's wake-up: a watch on the node it waits behind, or a change of the connection.
 * It remembers the last node whose deletion it was told of, so the attempt can tell a release
 * of the node it watched from any other wake-up.
 */
final class Waiter implements Watcher {

    private final Semaphore signals = new Semaphore(0);
    private volatile String deleted;

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.NodeDeleted && event.getPath() != null) {
            deleted = ZKPaths.getNodeFromPath(event.getPath());
        }
        signals.release();
    }

    void wake() {
        signals.release();
    }

    /** True when woken before {@code nanos} passed; drains further wake-ups, which the caller's re-read covers. */
    boolean await(long nanos) throws InterruptedException {
        boolean woken = signals.tryAcquire(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        signals.drainPermits();
        return woken;
    }

    /** Whether the server reported the deletion of the node named {@code node} (a child of the key's node). */
    boolean sawDeletionOf(String node) {
        return node.equals(deleted);
    }
}
