package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Contract section 15, semaphores ({@link LeasedSemaphore}, a recipe over the registry's locks). Never more permits
 * than declared, no starvation of a waiter for several permits, permits of crashed holders return, releases wake
 * waiters, and cancelled acquisitions leave nothing held. Declarations: {@link Rule15SemaphoreDeclarations}.
 */
abstract class Rule15Semaphores extends LockGroup {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final int PERMITS = 2;
    private static final int PASSES = 3;
    /** How long a pass waits for the others to fill the semaphore. Only the last passes of a run wait it out. */
    private static final Duration LINGER = Duration.ofMillis(500);

    Rule15Semaphores(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void neverMoreValidPermitsThanDeclaredAcrossRegistriesAndThreads() throws Exception {
        PermitCounter counter = holdPermitsConcurrently(PERMITS, PERMITS);
        assertThat(counter.completed()).isEqualTo(2 * contendersPerRegistry() * PASSES);
        assertThat(counter.maxHeld())
                .as("permits held at once: never more than declared, and the semaphore was used full")
                .isEqualTo(PERMITS);
    }

    @Test
    void permitCounterCatchesASemaphoreThatGrantsOneTooMany() throws Exception {
        // Control run. The same workload, with the semaphore declaring one permit more than the test allows.
        PermitCounter counter = holdPermitsConcurrently(PERMITS + 1, PERMITS + 1);
        assertThat(counter.maxHeld()).isGreaterThan(PERMITS);
    }

    private PermitCounter holdPermitsConcurrently(int declared, int fillAt) throws Exception {
        String name = key("pool");
        PermitCounter counter = new PermitCounter(fillAt);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (LockRegistry registry : List.of(registryA, registryB)) {
            for (int t = 0; t < contendersPerRegistry(); t++) {
                workers.add(inThread(() -> {
                    LeasedSemaphore semaphore = LeasedSemaphore.of(registry, name, declared);
                    start.await();
                    for (int i = 0; i < PASSES; i++) {
                        try (Permits permits = semaphore.tryAcquire(LONG).orElseThrow()) {
                            assertThat(permits.isValid()).isTrue();
                            counter.hold(1, LINGER);
                        }
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            await(worker);
        }
        return counter;
    }

    @Test
    void aWaiterForAllPermitsIsNotStarvedBySingleAcquirersOnAnotherRegistry() throws Exception {
        String name = key("batch");
        int permits = 3;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger cycles = new AtomicInteger();
        List<Future<Void>> cyclers = new ArrayList<>();
        for (int t = 0; t < permits; t++) {
            cyclers.add(inThread(() -> {
                LeasedSemaphore semaphore = LeasedSemaphore.of(registryB, name, permits);
                while (!stop.get()) {
                    try (Permits one = semaphore.tryAcquire(LONG).orElseThrow()) {
                        cycles.incrementAndGet();
                        Thread.sleep(20);
                    }
                }
                return null;
            }));
        }
        awaitCondition(() -> cycles.get() >= permits, "the single acquirers did not start");
        LeasedSemaphore semaphore = LeasedSemaphore.of(registryA, name, permits);
        Optional<Permits> all = semaphore.tryAcquire(permits, Duration.ofSeconds(20));
        stop.set(true);
        assertThat(all)
                .as("the waiter for all permits got them within its wait")
                .isPresent();
        assertThat(all.get().count()).isEqualTo(permits);
        assertThat(all.get().isValid()).isTrue();
        List<LockHolder> holders =
                LeasedSemaphore.of(newRegistry(), name, permits).holders();
        assertThat(holders).hasSize(permits);
        assertThat(holders).allSatisfy(holder -> assertThat(holder.note()).contains("permits=" + permits));
        all.get().close();
        for (Future<Void> cycler : cyclers) {
            await(cycler);
        }
    }

    @Test
    void aPermitWhoseHolderNeverReleasesReturnsWhenItsLeaseEnds() throws Exception {
        String name = key("dropped");
        AtomicInteger lost = new AtomicInteger();
        Permits dropped = LeasedSemaphore.of(registryA, name, 1)
                .tryAcquire(1, timingSlack(), leaseTime())
                .orElseThrow();
        dropped.onLost(lost::incrementAndGet);
        Optional<Permits> next = LeasedSemaphore.of(registryB, name, 1)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        assertThat(next).as("the permit returned once its lease ended").isPresent();
        assertThat(dropped.isValid()).isFalse();
        awaitCondition(() -> lost.get() > 0, "onLost did not run for the dropped permit");
        assertThat(lost).hasValue(1);
        assertThat(next.get()
                        .list()
                        .get(0)
                        .token()
                        .isNewerThan(dropped.list().get(0).token()))
                .as("a slot's token rises with each holder")
                .isTrue();
        dropped.close(); // a stale release must leave the next holder alone
        assertThat(next.get().isValid()).isTrue();
        assertThat(LeasedSemaphore.of(newRegistry(), name, 1).tryAcquire(Duration.ZERO))
                .isEmpty();
        next.get().close();
    }

    @Test
    void aForceReleasedPermitIsLostByItsHolderAndGrantedToAnother() throws Exception {
        String name = key("evicted");
        Permits evicted = LeasedSemaphore.of(shortLeaseRegistry(), name, 1)
                .tryAcquire(timingSlack())
                .orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        evicted.onLost(lost::incrementAndGet);
        assertThat(registryB.forceRelease(evicted.list().get(0).key())).isTrue();
        Optional<Permits> next = LeasedSemaphore.of(registryB, name, 1).tryAcquire(timingSlack());
        assertThat(next).as("the evicted permit is free for another registry").isPresent();
        awaitCondition(() -> !evicted.isValid(), "the evicted holder still sees its permit valid");
        awaitCondition(() -> lost.get() == 1, "onLost did not run for the evicted permit");
        evicted.close();
        assertThat(next.get().isValid()).isTrue();
        next.get().close();
    }

    @Test
    void aReleaseWakesAWaiterOnAnotherRegistry() throws Exception {
        String name = key("wake");
        Permits held =
                LeasedSemaphore.of(registryA, name, 1).tryAcquire(timingSlack()).orElseThrow();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = inThread(() -> {
            waiting.countDown();
            Optional<Permits> permits = LeasedSemaphore.of(registryB, name, 1).tryAcquire(Duration.ofSeconds(30));
            long acquiredAt = System.nanoTime();
            permits.orElseThrow().close();
            return acquiredAt;
        });
        waiting.await();
        Thread.sleep(200);
        assertThat(waiter.isDone()).as("no permit while the only one is held").isFalse();
        long releasedAt = System.nanoTime();
        held.close();
        assertThat(Duration.ofNanos(await(waiter) - releasedAt))
                .isLessThan(timingSlack().plus(timingSlack()));
    }

    @Test
    void cancellingAnAsyncAcquisitionLeavesNothingHeld() throws Exception {
        // The cancellation lands at a different point in each round. Queued, waiting for the slot, as it is granted.
        for (int round = 0; round < 10; round++) {
            String name = key("cancel" + round);
            Permits held = LeasedSemaphore.of(registryA, name, 1)
                    .tryAcquire(timingSlack())
                    .orElseThrow();
            CompletableFuture<Optional<Permits>> pending =
                    LeasedSemaphore.of(registryB, name, 1).acquireAsync(1, LONG);
            Thread.sleep(round * 5L);
            held.close();
            Thread.sleep(round % 3);
            if (!pending.cancel(true)) {
                pending.get(30, TimeUnit.SECONDS).ifPresent(Permits::close); // granted first. Ours to close
            }
            // Asked from the registry that released the permit (connected, scripts loaded), for less than the
            // permits' lease. A permit left held, by the server or by the cancelled side's watchdog, stays past it.
            Optional<Permits> next = LeasedSemaphore.of(registryA, name, 1)
                    .tryAcquire(holdLeaseTime().dividedBy(2));
            assertThat(next)
                    .as("round %d: the cancelled acquisition left nothing held", round)
                    .isPresent();
            next.get().close();
        }
    }

    /** Waits (at most three leases and slack) until {@code check} holds. Fails with {@code failure} otherwise. */
    static void awaitCondition(LockGroup group, Check check, String failure) throws Exception {
        long until = System.nanoTime()
                + group.leaseTime().plus(group.timingSlack()).multipliedBy(3).toNanos();
        while (!check.holds()) {
            assertThat(System.nanoTime()).as(failure).isLessThan(until);
            Thread.sleep(5);
        }
    }

    private void awaitCondition(Check check, String failure) throws Exception {
        awaitCondition(this, check, failure);
    }

    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }
}
