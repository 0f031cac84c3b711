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
 * A Curator background call whose answer one thread waits for, but no longer than it may. Curator's blocking calls wait
 * for its connection timeout and retries, far beyond a caller's wait time during a silent partition. When the waiter
 * gives up first, a late answer goes to {@code lateAnswer}, for example to delete a lock node that was created after
 * all.
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
     * The answer, or null when none came within {@code nanos}. The call is then abandoned.
     *
     * @throws InterruptedException when interrupted, which abandons the call
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

    /** Like {@link #await}, but an interrupt does not end the wait. It is kept for the caller. */
    CuratorEvent awaitUninterruptibly(long nanos) {
        long end = System.nanoTime() + Math.max(0, nanos);
        return Interrupts.deferred(() ->
                answered.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS) ? event : abandon());
    }

    /** Gives up waiting. Returns the answer if it arrived meanwhile. */
    private CuratorEvent abandon() {
        return state.compareAndSet(WAITING, ABANDONED) ? null : event;
    }
}
