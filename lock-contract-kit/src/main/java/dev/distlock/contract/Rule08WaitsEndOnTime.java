package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
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
import org.junit.jupiter.api.TestInfo;

/** Contract rule 8, waits end on time. A wait ends at its wait time, and closing a registry ends its waiters. */
abstract class Rule08WaitsEndOnTime extends LockGroup {

    Rule08WaitsEndOnTime(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void tryAcquireGivesUpWithinItsWaitTime(TestInfo test) throws Exception {
        String key = key();
        Duration wait = Duration.ofMillis(400);
        try (LockHandle held = registryA.obtain(key).acquire()) {
            WaitBounds.check(this, test, () -> {
                long start = System.nanoTime();
                Optional<LockHandle> result = registryB.obtain(key).tryAcquire(wait);
                Timed timed = Timed.since(start, wait.plus(timingSlack()));
                assertThat(result).isEmpty();
                assertThat(timed.took()).isGreaterThanOrEqualTo(wait.minusMillis(50));
                return timed;
            });
        }
    }

    @Test
    void zeroWaitReturnsAtOnceWhenHeld(TestInfo test) throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            WaitBounds.check(this, test, () -> {
                long start = System.nanoTime();
                Optional<LockHandle> result = tryNow(registryB, key);
                Timed timed = Timed.since(start, timingSlack());
                assertThat(result).isEmpty();
                return timed;
            });
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
    void closingTheRegistryEndsItsWaitersAndLeavesNothingHeld(TestInfo test) throws Exception {
        WaitBounds.check(this, test, this::closeWithWaiters);
    }

    /**
     * Closes a registry with a waiter on a key it holds and one on a key held elsewhere, and returns how long they
     * took to end.
     */
    private Timed closeWithWaiters() throws Exception {
        String heldLocally = key("local");
        String heldElsewhere = key("remote");
        LockRegistry closing = newRegistry();
        CountDownLatch testOver = new CountDownLatch(1);
        Thread holder = holdInItsOwnThread(closing, heldLocally, testOver);
        Timed timed;
        try (LockHandle other = registryB.obtain(heldElsewhere).acquire()) {
            Future<Throwable> localWaiter =
                    inThread(() -> failureOf(() -> closing.obtain(heldLocally).acquire()));
            Future<Throwable> serverWaiter =
                    inThread(() -> failureOf(() -> closing.obtain(heldElsewhere).acquire()));
            Thread.sleep(300);
            long closedAt = System.nanoTime();
            closing.close();
            Throwable local = await(localWaiter);
            Throwable remote = await(serverWaiter);
            timed = Timed.since(closedAt, timingSlack().plusSeconds(1));
            assertThat(local).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThat(remote).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
        for (String key : List.of(heldLocally, heldElsewhere)) {
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("nothing of the closed registry is left on %s", key)
                    .isPresent();
            next.get().close();
        }
        testOver.countDown();
        holder.join(5_000);
        return timed;
    }

    /** Its own thread, kept busy until {@code testOver}. A pooled thread could serve a waiter and join the hold. */
    private static Thread holdInItsOwnThread(LockRegistry registry, String key, CountDownLatch testOver)
            throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                registry.obtain(key).acquire();
                holding.countDown();
                testOver.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        holder.start();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        return holder;
    }
}
