package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.core.multi.MultiLockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Contract rule 14, multi-key locks: {@link MultiLock} over the backend takes its keys all or nothing, in one
 * global order, so overlapping sets never deadlock and never overlap. Handles: {@link Rule14MultiKeyHandles}.
 */
abstract class Rule14MultiKeyLocks extends LockGroup {

    /** Far more than the workload needs. A deadlock would use it up and fail the pass. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);

    private static final int PASSES = 4;

    Rule14MultiKeyLocks(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void overlappingSetsInOppositeOrdersNeitherDeadlockNorOverlap() throws Exception {
        String a = key("a");
        String b = key("b");
        String c = key("c");
        Map<String, OverlapDetector> detectors = detectors(a, b, c);
        List<List<String>> sets = List.of(List.of(a, b), List.of(b, a), List.of(b, c), List.of(c, a, b));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (LockRegistry registry : List.of(registryA, registryB)) {
            for (List<String> set : sets) {
                workers.add(inThread(() -> {
                    MultiLock lock = MultiLock.of(registry, set);
                    start.await();
                    for (int i = 0; i < PASSES; i++) {
                        try (MultiLockHandle held = lock.tryAcquire(LONG_WAIT)
                                .orElseThrow(() -> new AssertionError("set " + set + " waited " + LONG_WAIT
                                        + " without getting every key: the sets deadlocked"))) {
                            for (String key : set) {
                                detectors.get(key).criticalSection();
                            }
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
        for (String key : List.of(a, b, c)) {
            int expected = 2
                    * PASSES
                    * (int) sets.stream().filter(set -> set.contains(key)).count();
            OverlapDetector detector = detectors.get(key);
            assertThat(detector.completed()).as("passes over %s", key).isEqualTo(expected);
            assertThat(detector.count())
                    .as("lost updates of %s mean two sets holding it overlapped", key)
                    .isEqualTo(expected);
            assertThat(detector.maxActive()).as("passes over %s at once", key).isEqualTo(1);
        }
    }

    @Test
    void overlapDetectorsCatchTheSameSetsWithoutTheLock() throws Exception {
        // Control run. The workload above, with the lock bypassed.
        String a = key("a");
        String b = key("b");
        String c = key("c");
        Map<String, OverlapDetector> detectors = detectors(a, b, c);
        List<List<String>> sets = List.of(List.of(a, b), List.of(b, a), List.of(b, c), List.of(c, a, b));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (int registry = 0; registry < 2; registry++) {
            for (List<String> set : sets) {
                workers.add(inThread(() -> {
                    start.await();
                    for (int i = 0; i < PASSES; i++) {
                        for (String key : set) {
                            detectors.get(key).criticalSection();
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
        OverlapDetector shared = detectors.get(b); // in every set. Four threads start on it at once
        assertThat(shared.completed()).isEqualTo(2 * PASSES * sets.size());
        assertThat(shared.overlapSeen()).isTrue();
        assertThat(shared.count()).isLessThan(shared.completed());
    }

    @Test
    void keysTakenInTheCallersOrderDeadlock() throws Exception {
        // Control run. Plain locks taken in the order each caller names them. Each caller holds its first key
        // while it asks for the second, and until both asked, so both wait for each other until their waits end.
        String a = key("a");
        String b = key("b");
        CyclicBarrier inStep = new CyclicBarrier(2);
        Duration wait = Duration.ofMillis(200);
        Future<Boolean> ab = inThread(() -> inCallersOrder(registryA, a, b, inStep, wait));
        Future<Boolean> ba = inThread(() -> inCallersOrder(registryB, b, a, inStep, wait));
        assertThat(List.of(await(ab), await(ba)))
                .as("each caller got its second key")
                .containsExactly(false, false);
    }

    private static boolean inCallersOrder(
            LockRegistry registry, String first, String second, CyclicBarrier barrier, Duration wait) throws Exception {
        try (LockHandle held = registry.obtain(first).tryAcquire(LONG_WAIT).orElseThrow()) {
            barrier.await(30, TimeUnit.SECONDS);
            Optional<LockHandle> next = registry.obtain(second).tryAcquire(wait);
            next.ifPresent(LockHandle::close);
            barrier.await(30, TimeUnit.SECONDS);
            return next.isPresent();
        }
    }

    @Test
    void aHeldKeyFailsTheWholeSetWithinTheWaitAndLeavesTheOtherKeysFree(TestInfo test) throws Exception {
        String a = key("a");
        String b = key("b");
        String c = key("c");
        MultiLock set = MultiLock.of(registryA, c, b, a);
        try (LockHandle held = registryB.obtain(b).tryAcquire(LONG_WAIT).orElseThrow()) {
            Duration wait = Duration.ofMillis(300);
            WaitBounds.check(
                    this,
                    test,
                    () -> { // one deadline for the set
                        long start = System.nanoTime();
                        Optional<MultiLockHandle> result = set.tryAcquire(wait);
                        Timed timed = Timed.since(start, wait.plus(timingSlack()));
                        assertThat(result).isEmpty();
                        return timed;
                    });
            assertThatThrownBy(() -> set.executeLocked(wait, handle -> "ran"))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining(b)
                    .satisfies(e ->
                            assertThat(((LockNotAcquiredException) e).key()).isEqualTo(b));
            for (String key : List.of(a, c)) {
                assertThat(registryA.obtain(key).holdCount())
                        .as("the caller keeps nothing of %s", key)
                        .isZero();
                Optional<LockHandle> other = newRegistry().obtain(key).tryAcquire(timingSlack());
                assertThat(other).as("%s is free for another owner", key).isPresent();
                other.get().close();
            }
            assertThat(held.isValid()).isTrue();
        }
    }

    private static Map<String, OverlapDetector> detectors(String... keys) {
        Map<String, OverlapDetector> detectors = new LinkedHashMap<>();
        for (String key : keys) {
            detectors.put(key, new OverlapDetector(5));
        }
        return detectors;
    }
}
