package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot wake-up for a waiter: fires when the queue entry just before its own is gone, or
 * when the watch fails (server gone, revision compacted), after which the waiter reads the queue
 * again.
 *
 * <p>The watch starts at the server's current revision, never at an older one: etcd delivers the
 * events of a watch that starts in the past from a catch-up loop that runs every 100 ms, so such
 * a watch would wake the waiter up to 100 ms late whenever anything was written to etcd since its
 * read. A deletion between the waiter's read and the watch's start is found by reading the entry
 * once the watch is in place: gone, or a newer entry of the same name in its place, wakes the
 * waiter at once.
 */
final class PredecessorWatch implements AutoCloseable {

    private final CountDownLatch woken = new CountDownLatch(1);
    private final Watch.Watcher watcher;

    /**
     * @param readRevision the revision of the read that found {@code predecessor} in the way; the
     *     entry found then was created at or before it
     */
    PredecessorWatch(Client client, ByteSequence predecessor, long readRevision) {
        WatchOption option =
                WatchOption.builder().withNoPut(true).withCreateNotify(true).build();
        watcher = client.getWatchClient()
                .watch(
                        predecessor,
                        option,
                        Watch.listener(
                                response -> {
                                    if (!response.getEvents().isEmpty()) {
                                        woken.countDown();
                                    } else if (response.isCreatedNotify()) {
                                        checkStillThere(client, predecessor, readRevision);
                                    }
                                },
                                error -> woken.countDown()));
    }

    /** Once the watch is in place: wakes the waiter when the entry it waits for went before that. */
    private void checkStillThere(Client client, ByteSequence predecessor, long readRevision) {
        client.getKVClient().get(predecessor).whenComplete((response, error) -> {
            if (error != null || goneSince(response.getKvs(), readRevision)) {
                woken.countDown();
            }
        });
    }

    private static boolean goneSince(List<KeyValue> found, long readRevision) {
        return found.isEmpty() || found.get(0).getCreateRevision() > readRevision;
    }

    /** Waits up to {@code nanos}; true when woken. */
    boolean await(long nanos) throws InterruptedException {
        return woken.await(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        watcher.close();
    }
}
