package dev.distlock.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cancelling an asynchronous attempt that waits behind another caller of the same registry ends it at once. */
class AbandonmentTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void aCancelledAttemptQueuedAtTheLocalGateEndsAtOnceAndNeverAsksTheServer() throws Exception {
        FakeBackend server = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        CountDownLatch interrupted = new CountDownLatch(1);
        try (LockEngine<Lease> engine = new LockEngine<>(server, RegistryOptions.defaults())) {
            engine.addObserver(new LockObserver() {
                @Override
                public void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {
                    if (outcome == Outcome.INTERRUPTED) {
                        interrupted.countDown();
                    }
                }
            });
            LockHandle held = engine.acquireAsync(
                            Acquisition.renewed("k", "k", Duration.ZERO, LEASE).ownedByHandle())
                    .get(30, TimeUnit.SECONDS)
                    .orElseThrow();
            CompletableFuture<Optional<LockHandle>> waiting = engine.acquireAsync(
                    Acquisition.renewed("k", "k", Duration.ofMinutes(10), LEASE).ownedByHandle());
            waitUntilQueued(engine);

            waiting.cancel(true);

            assertThat(interrupted.await(5, TimeUnit.SECONDS))
                    .as("the abandoned attempt ended while the key was still held")
                    .isTrue();
            held.close();
            assertThat(server.tokens.get()).as("grants the server made").isEqualTo(1);
            assertThat(engine.trackedKeys()).as("keys still tracked").isZero();
        }
    }

    @Test
    void anAttemptCancelledBeforeItStartsNeverAsksTheServer() throws Exception {
        Abandonment abandonment = new Abandonment();
        abandonment.abandon();
        assertThat(abandonment.enterGate()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anAbandonmentAfterTheGateWasPassedLeavesNoInterruptBehind() {
        Abandonment abandonment = new Abandonment();
        assertThat(abandonment.enterGate()).isTrue();
        abandonment.abandon();
        assertThat(abandonment.leaveGate()).isTrue();
        assertThat(Thread.currentThread().isInterrupted())
                .as("the interrupt meant for the gate wait")
                .isFalse();
    }

    private static void waitUntilQueued(LockEngine<Lease> engine) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (engine.waiters.count() == 0 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(engine.waiters.count()).as("waiters").isEqualTo(1);
    }
}
