package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Contract rule 8, waits end on time: a wait ends at its wait time, and closing a registry ends its waiters. */
abstract class Rule08WaitsEndOnTime extends LockGroup {

    Rule08WaitsEndOnTime(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void tryAcquireGivesUpWithinItsWaitTime() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            Duration wait = Duration.ofMillis(400);
            long start = System.nanoTime();
            Optional<LockHandle> result = registryB.obtain(key).tryAcquire(wait);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(result).isEmpty();
            assertThat(took).isGreaterThanOrEqualTo(wait.minusMillis(50));
            assertThat(took).isLessThan(wait.plus(timingSlack()));
        }
    }

    @Test
    void zeroWaitReturnsAtOnceWhenHeld() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            long start = System.nanoTime();
            assertThat(tryNow(registryB, key)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timingSlack());
        }
    }

    @Test
    void executeLockedThrowsWhenTheWaitRunsOut() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            assertThatThrownBy(() -> registryB.executeLocked(key, Duration.ofMillis(100), handle -> "ran"))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining(registryB.backend());
        }
    }

    @Test
    void closingTheRegistryReleasesItsHolds() throws Exception {
        String key = key();
        LockRegistry closing = newRegistry();
        closing.obtain(key).acquire();
        closing.close();
        Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
        assertThat(next).isPresent();
        next.get().close();
        assertThatThrownBy(() -> closing.obtain(key)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheRegistryEndsItsWaitersAndLeavesNothingHeld() throws Exception {
        String heldLocally = key("local");
        String heldElsewhere = key("remote");
        LockRegistry closing = newRegistry();
        LockHandle other = registryB.obtain(heldElsewhere).acquire();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch testOver = new CountDownLatch(1);
        // Its own thread, kept busy: a pooled thread could serve a waiter below and join the hold.
        Thread holder = new Thread(() -> {
            try {
                closing.obtain(heldLocally).acquire();
                holding.countDown();
                testOver.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        holder.start();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Future<Throwable> localWaiter =
                inThread(() -> failureOf(() -> closing.obtain(heldLocally).acquire()));
        Future<Throwable> serverWaiter =
                inThread(() -> failureOf(() -> closing.obtain(heldElsewhere).acquire()));
        Thread.sleep(300);
        long closedAt = System.nanoTime();
        closing.close();
        Throwable local = await(localWaiter);
        Throwable remote = await(serverWaiter);
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt))
                .isLessThan(timingSlack().plusSeconds(1));
        assertThat(local).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(remote).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        other.close();
        for (String key : List.of(heldLocally, heldElsewhere)) {
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("nothing of the closed registry is left on %s", key)
                    .isPresent();
            next.get().close();
        }
        testOver.countDown();
        holder.join(5_000);
    }
}
