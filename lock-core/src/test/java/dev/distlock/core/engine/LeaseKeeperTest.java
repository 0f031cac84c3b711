package dev.distlock.core.engine;

import static dev.distlock.core.engine.StageFakes.awaited;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseKeeper} alone: it runs what is due in time order, keeps one per kind and
 * forgets what a hold had queued. Order is checked, never timing: a later job is the witness.
 */
class LeaseKeeperTest {

    private static final long SOON = Duration.ofMillis(50).toNanos();

    @Test
    void aFirstEntryLeftOnItsHoldIsQueuedAndRuns() throws Exception {
        LeaseKeeper.Schedule schedules = new LeaseKeeper.Schedule();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(schedules))) {
            CountDownLatch ran = new CountDownLatch(1);
            keeper.atFirst(schedules, LeaseKeeper.Job.TIMER, System.nanoTime() + SOON, ran::countDown);
            assertThat(awaited(ran)).isTrue();
        }
    }

    @Test
    void aNewEntryReplacesItsSlotsOldOneAndOtherSlotsStay() throws Exception {
        LeaseKeeper.Schedule schedules = new LeaseKeeper.Schedule();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(schedules))) {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch last = new CountDownLatch(1);
            long now = System.nanoTime();
            keeper.at(schedules, LeaseKeeper.Job.TIMER, now + SOON, () -> ran.add("replaced"));
            keeper.at(schedules, LeaseKeeper.Job.LEASE_END, now + SOON, () -> ran.add("other job"));
            keeper.at(schedules, LeaseKeeper.Job.TIMER, now + 2 * SOON, () -> {
                ran.add("replacement");
                last.countDown();
            });
            assertThat(awaited(last)).isTrue();
            assertThat(ran).containsExactly("other job", "replacement");
        }
    }

    @Test
    void forgettingAHoldTakesOutEverythingItQueued() throws Exception {
        LeaseKeeper.Schedule forgotten = new LeaseKeeper.Schedule();
        LeaseKeeper.Schedule witness = new LeaseKeeper.Schedule();
        try (LeaseKeeper keeper = new LeaseKeeper("test", List.of(forgotten, witness))) {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch last = new CountDownLatch(1);
            long now = System.nanoTime();
            keeper.atFirst(forgotten, LeaseKeeper.Job.TIMER, now + SOON, () -> ran.add("first job"));
            keeper.at(forgotten, LeaseKeeper.Job.LEASE_END, now + SOON, () -> ran.add("queued job"));
            keeper.forget(forgotten);
            keeper.at(witness, LeaseKeeper.Job.TIMER, now + 2 * SOON, last::countDown);
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
