package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What a reply does on its callers' threads. */
class PendingReplyTest {

    @Test
    void aListenerForAReplyAlreadyInRunsWithoutTheReplysMonitor() {
        PendingReply<Object> reply =
                new PendingReply<>(null, null, System.nanoTime(), CompletableFuture.completedFuture(1L));
        AtomicReference<Boolean> monitorHeld = new AtomicReference<>();

        // A listener may block (wake a thread, send an attempt); a virtual thread that blocks
        // holding a monitor pins its carrier before JDK 24.
        reply.whenDone(() -> monitorHeld.set(Thread.holdsLock(reply)));

        assertThat(monitorHeld)
                .as("the listener ran, and whether it held the reply's monitor")
                .hasValue(false);
    }
}
