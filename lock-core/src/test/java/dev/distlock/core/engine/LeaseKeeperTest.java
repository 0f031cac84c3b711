package dev.distlock.core.engine;

import static dev.distlock.core.engine.StageFakes.awaited;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseKeeper} alone: it runs what is due in time order, keeps one entry per slot and
 * forgets what a hold had queued. Order is checked, never timing: a later entry is the witness.
 */
class LeaseKeeperTest {

    private static final long SOON = Duration.ofMillis(50).toNanos();

    @Test
    void aFirstEntryLeftOnItsHoldIsQueuedAndRuns() throws Exception {
        LeaseKeeper.Entries entries = new LeaseKeeper.Entries();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(entries))) {
            CountDownLatch ran = new CountDownLatch(1);
            keeper.atFirst(entries, LeaseKeeper.Slot.TIMER, System.nanoTime() + SOON, ran::countDown);
            assertThat(awaited(ran)).isTrue();
        }
    }

    @Test
    void aNewEntryReplacesItsSlotsOldOneAndOtherSlotsStay() throws Exception {
        LeaseKeeper.Entries entries = new LeaseKeeper.Entries();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(entries))) {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch last = new CountDownLatch(1);
            long now = System.nanoTime();
            keeper.at(entries, LeaseKeeper.Slot.TIMER, now + SOON, () -> ran.add("replaced"));
            keeper.at(entries, LeaseKeeper.Slot.LEASE_END, now + SOON, () -> ran.add("other slot"));
            keeper.at(entries, LeaseKeeper.Slot.TIMER, now + 2 * SOON, () -> {
                ran.add("replacement");
                last.countDown();
            });
            assertThat(awaited(last)).isTrue();
            assertThat(ran).containsExactly("other slot", "replacement");
        }
    }

    @Test
    void forgettingAHoldTakesOutEverythingItQueued() throws Exception {
        LeaseKeeper.Entries forgotten = new LeaseKeeper.Entries();
        LeaseKeeper.Entries witness = new LeaseKeeper.Entries();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(forgotten, witness))) {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch last = new CountDownLatch(1);
            long now = System.nanoTime();
            keeper.atFirst(forgotten, LeaseKeeper.Slot.TIMER, now + SOON, () -> ran.add("first entry"));
            keeper.at(forgotten, LeaseKeeper.Slot.LEASE_END, now + SOON, () -> ran.add("queued entry"));
            keeper.forget(forgotten);
            keeper.at(witness, LeaseKeeper.Slot.TIMER, now + 2 * SOON, last::countDown);
            assertThat(awaited(last)).isTrue();
            assertThat(ran).isEmpty();
        }
    }

    @Test
    void runHandsWorkToAPoolThread() throws Exception {
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of())) {
            CountDownLatch ran = new CountDownLatch(1);
            List<String> threads = new CopyOnWriteArrayList<>();
            keeper.run(() -> {
                threads.add(Thread.currentThread().getName());
                ran.countDown();
            });
            assertThat(awaited(ran)).isTrue();
            assertThat(threads).singleElement().asString().startsWith("distlock-test-lease-");
        }
    }
}
