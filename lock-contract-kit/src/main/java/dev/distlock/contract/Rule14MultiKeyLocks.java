package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencedLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.core.multi.MultiLockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Contract rule 14, multi-key locks: {@link MultiLock} over the backend takes its keys all or nothing, in one
 * global order, so overlapping sets never deadlock and never overlap; one handle per set, a token per key, and the
 * loss of any key loses the whole hold.
 */
abstract class Rule14MultiKeyLocks extends LockGroup {

    /** Far more than the workload needs; a deadlock would use it up and fail the pass. */
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
        // Control run: the workload above, with the lock bypassed.
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
        OverlapDetector shared = detectors.get(b); // in every set: four threads start on it at once
        assertThat(shared.completed()).isEqualTo(2 * PASSES * sets.size());
        assertThat(shared.overlapSeen()).isTrue();
        assertThat(shared.count()).isLessThan(shared.completed());
    }

    @Test
    void keysTakenInTheCallersOrderDeadlock() throws Exception {
        // Control run: plain locks taken in the order each caller names them. Each caller holds its first key
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

    @Test
    void oneHandleReleasesEveryKeyAndTheNextHoldersGetLargerTokens() throws Exception {
        String a = key("a");
        String b = key("b");
        String c = key("c");
        MultiLockHandle handle = MultiLock.of(registryA, List.of(c, a, b, a))
                .tryAcquire(timingSlack())
                .orElseThrow();
        assertThat(handle.keys()).as("de-duplicated, in natural order").containsExactly(a, b, c);
        assertThat(handle.tokens()).containsOnlyKeys(a, b, c);
        assertThat(handle.token(b)).isEqualTo(handle.tokens().get(b));
        assertThat(handle.claim(c).token()).isEqualTo(handle.token(c));
        assertThatThrownBy(() -> handle.token(key("other")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(a);
        assertThat(handle.isValid()).isTrue();
        for (String key : handle.keys()) {
            assertThat(tryNow(registryB, key)).as("%s is held", key).isEmpty();
        }
        handle.close();
        handle.close();
        assertThat(handle.isValid()).isFalse();
        for (String key : handle.keys()) {
            LockHandle next = registryB.obtain(key).tryAcquire(timingSlack()).orElseThrow();
            assertThat(next.token().isNewerThan(handle.token(key)))
                    .as("the next holder of %s gets a larger token", key)
                    .isTrue();
            next.close();
        }
    }

    @Test
    void threadOwnedSetsAreReentrantPerKey() throws Exception {
        String a = key("a");
        String b = key("b");
        FencedLock lockA = registryA.obtain(a);
        try (LockHandle outer = lockA.tryAcquire(LONG_WAIT).orElseThrow()) {
            MultiLockHandle set =
                    MultiLock.of(registryA, b, a).tryAcquire(timingSlack()).orElseThrow();
            assertThat(set.token(a)).as("joins the thread's hold").isEqualTo(outer.token());
            assertThat(lockA.holdCount()).isEqualTo(2);
            set.close();
            assertThat(lockA.holdCount()).isEqualTo(1);
            assertThat(tryNow(registryB, a)).as("the outer hold keeps a").isEmpty();
            Optional<LockHandle> freed = registryB.obtain(b).tryAcquire(timingSlack());
            assertThat(freed).as("b is released").isPresent();
            freed.get().close();
        }
    }

    @Test
    void losingAnyKeyLosesTheWholeHoldAndRunsOnLostOnce() throws Exception {
        LockRegistry shortLeases = shortLeaseRegistry();
        String a = key("a");
        String b = key("b");
        MultiLockHandle handle =
                MultiLock.of(shortLeases, a, b).tryAcquire(timingSlack()).orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        handle.onLost(lost::incrementAndGet);
        assertThat(registryB.forceRelease(b)).isTrue();
        assertThat(registryB.forceRelease(a)).isTrue();
        long deadline = System.nanoTime()
                + leaseTime().plus(timingSlack()).multipliedBy(2).toNanos();
        while ((handle.isValid() || lost.get() == 0 || anyValid(shortLeases, a, b)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).as("the whole hold is lost").isFalse();
        assertThat(anyValid(shortLeases, a, b))
                .as("both keys' holds are known lost")
                .isFalse();
        assertThat(lost).as("onLost ran once for two lost keys").hasValue(1);
        AtomicInteger late = new AtomicInteger();
        handle.onLost(late::incrementAndGet);
        assertThat(late).as("a callback added after the loss runs at once").hasValue(1);
        handle.close();
        assertThat(lost).hasValue(1);
    }

    private static boolean anyValid(LockRegistry registry, String... keys) {
        List<String> wanted = Arrays.asList(keys);
        for (HoldInfo hold : registry.holds()) {
            if (wanted.contains(hold.key()) && hold.valid()) {
                return true;
            }
        }
        return false;
    }

    @Test
    void asyncSetsBelongToTheirHandleAndAnotherThreadReleasesThem() throws Exception {
        String a = key("a");
        String b = key("b");
        MultiLockHandle handle = MultiLock.of(registryA, b, a)
                .acquireAsync(timingSlack())
                .get(30, TimeUnit.SECONDS)
                .orElseThrow();
        assertThat(handle.keys()).containsExactly(a, b);
        assertThat(registryA.obtain(a).holdCount()).as("no thread owns it").isZero();
        assertThat(registryA.obtain(a).tryAcquire(Duration.ZERO))
                .as("not reentrant: the calling thread is excluded too")
                .isEmpty();
        assertThat(tryNow(registryB, b)).isEmpty();
        inThread(() -> {
                    handle.close();
                    return null;
                })
                .get(10, TimeUnit.SECONDS);
        for (String key : List.of(a, b)) {
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("%s is free after another thread closed the handle", key)
                    .isPresent();
            next.get().close();
        }
    }

    @Test
    void cancellingAPendingAsyncSetReleasesWhatItTookAndLeavesNothingHeld() throws Exception {
        String a = key("a");
        String b = key("b");
        LockHandle heldB = registryB.obtain(b).tryAcquire(LONG_WAIT).orElseThrow();
        CompletableFuture<Optional<MultiLockHandle>> pending =
                MultiLock.of(registryA, a, b).acquireAsync(Duration.ofSeconds(60));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (registryB.holderOf(a).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(registryB.holderOf(a))
                .as("the attempt took a while b is held")
                .isPresent();
        assertThat(pending.cancel(true)).isTrue();
        Optional<LockHandle> nextA = registryB.obtain(a).tryAcquire(timingSlack());
        assertThat(nextA).as("the cancellation released a").isPresent();
        nextA.get().close();
        heldB.close();
        Thread.sleep(200);
        LockRegistry other = newRegistry();
        for (String key : List.of(a, b)) {
            Optional<LockHandle> next = other.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("the cancelled attempt left nothing of %s held", key)
                    .isPresent();
            next.get().close();
        }
    }

    @Test
    void badKeysAndDurationsAreRejectedNamingTheKeysAndTheBackend() {
        String backend = registryA.backend();
        String a = key("a");
        assertThatThrownBy(() -> MultiLock.of(registryA, (Collection<String>) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> MultiLock.of(registryA, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one key")
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> MultiLock.of(registryA, Arrays.asList(a, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null")
                .hasMessageContaining(a)
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> MultiLock.of(registryA, a, "  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank")
                .hasMessageContaining(a)
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> MultiLock.of(registryA, a, "k".repeat(100_000)))
                .as("the backend's own key check")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(backend)
                .hasMessageContaining("at most");
        MultiLock set = MultiLock.of(registryA, a, key("b"));
        assertThatThrownBy(() -> set.tryAcquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime")
                .hasMessageContaining(a)
                .hasMessageContaining(backend);
        assertThatThrownBy(() -> set.tryAcquire(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> set.acquireAsync(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThat(registryA.obtain(a).holdCount()).isZero();
    }

    private static Map<String, OverlapDetector> detectors(String... keys) {
        Map<String, OverlapDetector> detectors = new LinkedHashMap<>();
        for (String key : keys) {
            detectors.put(key, new OverlapDetector(5));
        }
        return detectors;
    }
}
