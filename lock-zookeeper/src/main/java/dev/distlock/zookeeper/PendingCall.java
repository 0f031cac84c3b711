package dev.distlock.zookeeper;

import dev.distlock.core.spi.Interrupts;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;

/**
 * A Curator background operation whose answer one thread waits for, but no longer than it may.
 * Curator's own calls block for its connection timeout and retries, which can be far beyond a
 * caller's wait time during a silent partition; a background call plus a bounded wait cannot.
 * When the waiter gives up first, a late answer goes to {@code lateAnswer} (to delete a lock
 * node that was created after all).
 */
final class PendingCall implements BackgroundCallback {

    private static final int WAITING = 0;
    private static final int ANSWERED = 1;
    private static final int ABANDONED = 2;

    private final AtomicInteger state = new AtomicInteger(WAITING);
    private final CountDownLatch answered = new CountDownLatch(1);
    private final Consumer<CuratorEvent> lateAnswer;
    private volatile CuratorEvent event;

    PendingCall(Consumer<CuratorEvent> lateAnswer) {
        this.lateAnswer = lateAnswer;
    }

    PendingCall() {
        this(event -> {});
    }

    @Override
    public void processResult(CuratorFramework client, CuratorEvent result) {
        event = result;
        if (state.compareAndSet(WAITING, ANSWERED)) {
            answered.countDown();
        } else {
            lateAnswer.accept(result);
        }
    }

    /**
     * The answer, or null when none came within {@code nanos}; the call is then abandoned.
     *
     * @throws InterruptedException when interrupted; the call is abandoned
     */
    CuratorEvent await(long nanos) throws InterruptedException {
        try {
            if (answered.await(Math.max(0, nanos), TimeUnit.NANOSECONDS)) {
                return event;
            }
        } catch (InterruptedException e) {
            CuratorEvent raced = abandon();
            if (raced != null) {
                lateAnswer.accept(raced);
            }
            throw e;
        }
        return abandon();
    }

    /** Like {@link #await}, but an interrupt only shortens nothing: it is kept for the caller. */
    CuratorEvent awaitUninterruptibly(long nanos) {
        long end = System.nanoTime() + Math.max(0, nanos);
        return Interrupts.deferred(() ->
                answered.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS) ? event : abandon());
    }

    /** Gives up waiting; returns the answer if it arrived in the meantime. */
    private CuratorEvent abandon() {
        return state.compareAndSet(WAITING, ABANDONED) ? null : event;
    }
}
