package dev.distlock.zookeeper;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/** One attempt's wake-up: a watch on the node it waits behind, or a change of the connection. */
final class Waiter implements Watcher {

    private final Semaphore signals = new Semaphore(0);

    @Override
    public void process(WatchedEvent event) {
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
}
