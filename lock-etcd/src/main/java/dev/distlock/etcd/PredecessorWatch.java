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
 * A one-shot wake-up for a waiter. It fires when the entry the waiter waits for is gone or the
 * watch fails. The watch starts at the current revision, and a read once it is in place finds a
 * deletion that came before.
 */
final class PredecessorWatch implements AutoCloseable {

    private final CountDownLatch woken = new CountDownLatch(1);
    private final Watch.Watcher watcher;

    /** @param readRevision the revision of the read that found {@code predecessor} in the way */
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

    /** Wakes the waiter when the entry it waits for went before the watch was in place. */
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

    /** Waits up to {@code nanos}. True when woken. */
    boolean await(long nanos) throws InterruptedException {
        return woken.await(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        watcher.close();
    }
}
