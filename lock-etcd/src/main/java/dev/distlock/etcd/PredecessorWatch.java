package dev.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot wake-up for a waiter: fires when the queue entry just before its own is deleted,
 * or when the watch fails (server gone, revision compacted), after which the waiter reads
 * the queue again. Watching from the revision the waiter last read means a deletion that
 * happened before the watch was set up is still delivered.
 */
final class PredecessorWatch implements AutoCloseable {

    private final CountDownLatch woken = new CountDownLatch(1);
    private final Watch.Watcher watcher;

    PredecessorWatch(Watch watch, ByteSequence predecessor, long fromRevision) {
        WatchOption option =
                WatchOption.builder().withRevision(fromRevision).withNoPut(true).build();
        watcher = watch.watch(
                predecessor,
                option,
                Watch.listener(
                        response -> {
                            if (!response.getEvents().isEmpty()) {
                                woken.countDown();
                            }
                        },
                        error -> woken.countDown()));
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
