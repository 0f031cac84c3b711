package dev.distlock.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every backend keeps ({@code docs/contract.md}). A backend's
 * test class extends this and supplies registries over one shared server; each registry stands
 * for another JVM. Backends with documented differences override the timing hooks, never an
 * assertion.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class LockRegistryContract {

    private final List<LockRegistry> registries = new ArrayList<>();
    private ExecutorService threads;
    private String testName;

    /** Registry of "JVM A" and "JVM B": independent registries over the same server. */
    protected LockRegistry registryA;

    protected LockRegistry registryB;

    /**
     * A new registry over the server under test, built with {@code options} (lease time of
     * the watchdog, key prefix). The kit closes it after the test.
     */
    protected abstract LockRegistry createRegistry(RegistryOptions options);

    /**
     * The short lease of the tests about expiry, renewal and loss: their fixed leases, and the watchdog
     * lease of {@link #shortLeaseRegistry()}. Override where the backend has a coarser minimum.
     */
    protected Duration leaseTime() {
        return Duration.ofMillis(1000);
    }

    /**
     * The watchdog lease of {@link #registryA}, {@link #registryB} and {@link #newRegistry()}: long
     * enough that a renewal delayed by a loaded machine never loses a hold in a test about something else.
     */
    protected Duration holdLeaseTime() {
        return Duration.ofSeconds(10);
    }

    /** How late a wake-up or a timed-out wait may return, given the backend's round trips. */
    protected Duration timingSlack() {
        return Duration.ofMillis(750);
    }

    /** Threads per registry in the contention tests. */
    protected int contendersPerRegistry() {
        return 3;
    }

    @BeforeEach
    void openRegistries(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        threads = Executors.newCachedThreadPool();
        registryA = newRegistry();
        registryB = newRegistry();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        for (LockRegistry registry : registries) {
            registry.close();
        }
        registries.clear();
    }

    /** Another registry ("JVM") over the same server, closed after the test. */
    protected final LockRegistry newRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(holdLeaseTime()));
    }

    /** A registry whose watchdog lease is {@link #leaseTime()}, for the tests about expiry, renewal and loss. */
    protected final LockRegistry shortLeaseRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(leaseTime()));
    }

    protected final LockRegistry newRegistry(RegistryOptions options) {
        LockRegistry registry = createRegistry(options);
        registries.add(registry);
        return registry;
    }

    /** A key no other test (or earlier run against a persistent server) uses. */
    protected final String key(String suffix) {
        return "contract-" + testName + "-" + suffix + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    protected final String key() {
        return key("k");
    }

    protected final <T> Future<T> inThread(Callable<T> task) {
        return threads.submit(task);
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    private static Optional<LockHandle> tryNow(LockRegistry registry, String key) throws InterruptedException {
        return registry.obtain(key).tryAcquire(Duration.ZERO);
    }

    // --- 1. Mutual exclusion -------------------------------------------------------------

    @Test
    void secondRegistryCannotAcquireWhileFirstHolds() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(tryNow(registryB, key)).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void releaseFreesKeyForAnotherRegistry() throws Exception {
        String key = key();
        registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow().close();
        Optional<LockHandle> second = tryNow(registryB, key);
        assertThat(second).isPresent();
        second.get().close();
    }

    @Test
    void otherThreadOfSameRegistryWaitsLikeAnyoneElse() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        try (LockHandle held = lock.tryAcquire(Duration.ZERO).orElseThrow()) {
            Optional<LockHandle> other =
                    await(inThread(() -> registryA.obtain(key).tryAcquire(Duration.ofMillis(100))));
            assertThat(other).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void waiterAcquiresPromptlyWhenHolderReleases() throws Exception {
        String key = key();
        LockHandle held = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = inThread(() -> {
            waiting.countDown();
            FencedLock lock = registryB.obtain(key);
            Optional<LockHandle> handle = lock.tryAcquire(Duration.ofSeconds(30));
            long acquiredAt = System.nanoTime();
            handle.orElseThrow().close();
            return acquiredAt;
        });
        waiting.await();
        Thread.sleep(200);
        assertThat(waiter.isDone())
                .as("waiter must not acquire while the key is held")
                .isFalse();
        long releasedAt = System.nanoTime();
        held.close();
        long wokeAfter = await(waiter) - releasedAt;
        assertThat(Duration.ofNanos(wokeAfter)).isLessThan(timingSlack().plus(timingSlack()));
    }

    @Test
    void threadsOfOneRegistryNeverOverlap() throws Exception {
        assertNoOverlap(List.of(registryA), contendersPerRegistry() * 2, 8);
    }

    @Test
    void threadsOfTwoRegistriesNeverOverlap() throws Exception {
        assertNoOverlap(List.of(registryA, registryB), contendersPerRegistry(), 8);
    }

    @Test
    void overlapDetectorCatchesUnlockedIncrements() throws Exception {
        // Control run: the same workload as the mutual-exclusion tests, with the lock bypassed.
        OverlapDetector detector = new OverlapDetector(5);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            workers.add(inThread(() -> {
                start.await();
                for (int i = 0; i < 5; i++) {
                    detector.criticalSection();
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            await(worker);
        }
        assertThat(detector.completed()).isEqualTo(20);
        assertThat(detector.overlapSeen()).isTrue();
        assertThat(detector.count()).isLessThan(detector.completed());
    }

    private void assertNoOverlap(List<LockRegistry> owners, int threadsPerRegistry, int passes) throws Exception {
        String key = key();
        OverlapDetector detector = new OverlapDetector(2);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (LockRegistry registry : owners) {
            for (int t = 0; t < threadsPerRegistry; t++) {
                workers.add(inThread(() -> {
                    FencedLock lock = registry.obtain(key);
                    start.await();
                    for (int i = 0; i < passes; i++) {
                        try (LockHandle handle =
                                lock.tryAcquire(Duration.ofSeconds(60)).orElseThrow()) {
                            detector.criticalSection();
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
        int expected = owners.size() * threadsPerRegistry * passes;
        assertThat(detector.completed()).isEqualTo(expected);
        assertThat(detector.count())
                .as("lost updates mean two owners overlapped")
                .isEqualTo(expected);
        assertThat(detector.maxActive()).isEqualTo(1);
    }

    // --- 2. Reentrancy -------------------------------------------------------------------

    @Test
    void ownerAcquiresAgainAndHoldCountRises() throws Exception {
        FencedLock lock = registryA.obtain(key());
        try (LockHandle first = lock.acquire();
                LockHandle second = lock.tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lock.holdCount()).isEqualTo(2);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(second.token()).isEqualTo(first.token());
        }
        assertThat(lock.holdCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void onlyTheLastReleaseFreesTheKey() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        LockHandle outer = lock.acquire();
        LockHandle inner = lock.acquire();
        inner.close();
        assertThat(tryNow(registryB, key))
                .as("key still held by the outer hold")
                .isEmpty();
        assertThat(outer.isValid()).isTrue();
        outer.close();
        Optional<LockHandle> next = tryNow(registryB, key);
        assertThat(next).isPresent();
        next.get().close();
    }

    @Test
    void holdCountIsPerThread() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        try (LockHandle held = lock.acquire()) {
            assertThat(await(inThread(() -> registryA.obtain(key).holdCount()))).isZero();
            assertThat(await(inThread(() -> registryA.obtain(key).isHeldByCurrentThread())))
                    .isFalse();
            assertThat(lock.holdCount()).isEqualTo(1);
        }
    }

    @Test
    void lockAndUnlockFollowTheLockInterface() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        lock.lock();
        try {
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.holdCount()).isEqualTo(2);
            assertThat(lock.currentToken()).isPresent();
            lock.unlock();
            assertThat(registryB.obtain(key).tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(lock.currentToken()).isEmpty();
        FencedLock other = registryB.obtain(key);
        assertThat(other.tryLock(5, TimeUnit.SECONDS)).isTrue();
        other.unlock();
    }

    // --- 3. Owner-only release, and 4: acquiring again after a loss ----------------------

    @Test
    void unlockByThreadThatHoldsNothingIsRefused() {
        FencedLock lock = registryA.obtain(key());
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(lock.key());
    }

    @Test
    void unlockByAnotherThreadOfTheOwnerRegistryIsRefused() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        try (LockHandle held = lock.acquire()) {
            Future<Throwable> stranger = inThread(() -> {
                try {
                    registryA.obtain(key).unlock();
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            });
            assertThat(await(stranger)).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(held.isValid()).isTrue();
            assertThat(tryNow(registryB, key)).isEmpty();
        }
    }

    @Test
    void closingAHandleTwiceReleasesOnlyOnce() throws Exception {
        FencedLock lock = registryA.obtain(key());
        LockHandle outer = lock.acquire();
        LockHandle inner = lock.acquire();
        inner.close();
        inner.close();
        assertThat(lock.holdCount()).isEqualTo(1);
        assertThat(inner.isValid()).isFalse();
        assertThat(outer.isValid()).isTrue();
        outer.close();
        assertThat(lock.holdCount()).isZero();
    }

    @Test
    void releaseAfterLeaseLossDoesNotFreeTheNextOwner() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        LockHandle stale =
                expiring.obtain(key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        LockHandle next = registryB
                .obtain(key)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3))
                .orElseThrow(() -> new AssertionError("the fixed lease never expired"));
        assertThat(stale.isValid()).isFalse();
        stale.close(); // must not throw, must not free the next owner's lock
        assertThat(expiring.obtain(key).holdCount()).isZero();
        Optional<LockHandle> third = newRegistry().obtain(key).tryAcquire(Duration.ZERO);
        assertThat(third).as("the next owner's lock survived the stale release").isEmpty();
        assertThat(next.isValid()).isTrue();
        assertThat(next.token().isNewerThan(stale.token())).isTrue();
        next.close();
    }

    @Test
    void reacquiringAfterLeaseLossTakesAFreshHoldWithALargerToken() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencedLock lock = expiring.obtain(key);
        LockHandle lost = lock.tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        awaitInvalid(lost);
        LockHandle fresh = lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(fresh.isValid()).isTrue();
        assertThat(fresh.token().isNewerThan(lost.token())).isTrue();
        assertThat(lost.isValid()).as("the lost hold stays lost").isFalse();
        assertThat(lock.holdCount())
                .as("the stale hold still counts until released")
                .isEqualTo(2);
        lost.close();
        assertThat(tryNow(registryB, key))
                .as("closing the stale handle keeps the fresh hold")
                .isEmpty();
        assertThat(fresh.isValid()).isTrue();
        fresh.close();
        assertThat(lock.holdCount()).isZero();
        Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
        assertThat(next).isPresent();
        next.get().close();
    }

    @Test
    void reacquiringAfterLeaseLossGivesNothingWhileAnotherOwnerHolds() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencedLock lock = expiring.obtain(key);
        LockHandle lost = lock.tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        LockHandle other = registryB
                .obtain(key)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3))
                .orElseThrow();
        assertThat(lock.tryLock()).as("a plain false, no exception").isFalse();
        assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        lost.close();
        assertThat(lock.holdCount()).isZero();
        assertThat(other.isValid()).isTrue();
        other.close();
    }

    // --- 4. Leases -----------------------------------------------------------------------

    @Test
    void fixedLeaseExpiresAndAnotherOwnerAcquires() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        long start = System.nanoTime();
        LockHandle crashed =
                expiring.obtain(key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Optional<LockHandle> next =
                registryB.obtain(key).tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(next)
                .as("the lease of a holder that never releases must end")
                .isPresent();
        assertThat(waited)
                .as("not before the lease ran out")
                .isGreaterThanOrEqualTo(leaseTime().dividedBy(2));
        assertThat(crashed.isValid()).isFalse();
        next.get().close();
        crashed.close();
    }

    @Test
    void watchdogKeepsTheKeyHeldPastItsLease() throws Exception {
        LockRegistry renewing = shortLeaseRegistry();
        String key = key();
        try (LockHandle held = renewing.obtain(key).acquire()) {
            FencingToken token = held.token();
            Thread.sleep(leaseTime().multipliedBy(5).dividedBy(2).toMillis());
            assertThat(held.isValid()).isTrue();
            assertThat(tryNow(registryB, key))
                    .as("the renewed lease must still exclude others")
                    .isEmpty();
            assertThat(held.token()).as("renewal keeps the token").isEqualTo(token);
            assertThat(renewing.obtain(key).currentToken()).contains(token);
        }
    }

    @Test
    void handleTurnsInvalidWhenItsFixedLeaseRunsOut() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        try (LockHandle held =
                expiring.obtain(key()).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow()) {
            assertThat(held.isValid()).isTrue();
            Thread.sleep(leaseTime().plus(timingSlack()).toMillis());
            assertThat(held.isValid()).isFalse();
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
    void handleIsInvalidOnceReleased() throws Exception {
        LockHandle handle = registryA.obtain(key()).acquire();
        assertThat(handle.isValid()).isTrue();
        handle.close();
        assertThat(handle.isValid()).isFalse();
    }

    // --- 5. Fencing tokens ---------------------------------------------------------------

    @Test
    void tokensStrictlyRiseAcrossOwners() throws Exception {
        String key = key();
        FencingToken last = null;
        for (int i = 0; i < 30; i++) {
            LockRegistry owner = i % 3 == 0 ? registryA : registryB;
            try (LockHandle handle =
                    owner.obtain(key).tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                if (last != null) {
                    assertThat(handle.token().isNewerThan(last))
                            .as("token %s after %s", handle.token(), last)
                            .isTrue();
                }
                last = handle.token();
            }
        }
    }

    @Test
    void tokensRiseAcrossExpiredLeases() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencingToken first = expiring.obtain(key)
                .tryAcquire(Duration.ZERO, leaseTime())
                .orElseThrow()
                .token();
        try (LockHandle second = registryB
                .obtain(key)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3))
                .orElseThrow()) {
            assertThat(second.token().isNewerThan(first)).isTrue();
        }
    }

    @Test
    void tokensOfDifferentHoldsOfOneThreadRise() throws Exception {
        FencedLock lock = registryA.obtain(key());
        FencingToken first;
        try (LockHandle handle = lock.acquire()) {
            first = handle.token();
        }
        try (LockHandle handle = lock.acquire()) {
            assertThat(handle.token().isNewerThan(first)).isTrue();
        }
    }

    // --- 6 and 8. Waiting, and waits that end on time ------------------------------------

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
    void waitingThreadCanBeInterrupted() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Throwable> waiter = inThread(() -> {
                waiterThread.set(Thread.currentThread());
                try {
                    registryB.obtain(key).acquire();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            Thread.sleep(200);
            long interruptedAt = System.nanoTime();
            waiterThread.get().interrupt();
            assertThat(await(waiter)).isInstanceOf(InterruptedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).isLessThan(timingSlack());
            assertThat(held.isValid()).isTrue();
        }
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).as("an interrupted waiter leaves nothing behind").isPresent();
        after.get().close();
    }

    @Test
    void localWaiterOfSameRegistryIsInterruptible() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            AtomicBoolean interrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    registryA.obtain(key).lockInterruptibly();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            waiter.start();
            Thread.sleep(100);
            waiter.interrupt();
            waiter.join(timingSlack().toMillis() + 1000);
            assertThat(interrupted).isTrue();
        }
    }

    // --- executeLocked and independence of keys ------------------------------------------

    @Test
    void executeLockedRunsTheTaskUnderTheLock() throws Exception {
        String key = key();
        String result = registryA.executeLocked(key, Duration.ofSeconds(5), handle -> {
            assertThat(handle.isValid()).isTrue();
            assertThat(tryNow(registryB, key)).isEmpty();
            return "done:" + handle.key();
        });
        assertThat(result).isEqualTo("done:" + key);
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).isPresent();
        after.get().close();
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
    void executeLockedReleasesWhenTheTaskThrows() throws Exception {
        String key = key();
        assertThatThrownBy(() -> registryA.executeLocked(key, Duration.ZERO, handle -> {
                    throw new IllegalStateException("task failed");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("task failed");
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).isPresent();
        after.get().close();
    }

    @Test
    void distinctKeysAreIndependent() throws Exception {
        String first = key("first");
        String second = key("second");
        try (LockHandle a = registryA.obtain(first).acquire();
                LockHandle b =
                        registryB.obtain(second).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(a.isValid()).isTrue();
            assertThat(b.isValid()).isTrue();
        }
    }

    @Test
    void keysThatLookAlikeStayDistinct() throws Exception {
        String base = key();
        List<String> keys = List.of(
                base,
                base + "/child",
                base + "/../x",
                base + "\n",
                base + " ",
                base + "%2F",
                base + "é",
                base.toUpperCase(),
                base + ":" + base,
                base + "'; DROP TABLE x; --");
        List<LockHandle> handles = new ArrayList<>();
        try {
            for (int i = 0; i < keys.size(); i++) {
                LockRegistry owner = i % 2 == 0 ? registryA : registryB;
                Optional<LockHandle> handle = owner.obtain(keys.get(i)).tryAcquire(Duration.ZERO);
                assertThat(handle)
                        .as("key %s must not collide with another", keys.get(i))
                        .isPresent();
                handles.add(handle.get());
                assertThat(handle.get().key()).isEqualTo(keys.get(i));
            }
        } finally {
            handles.forEach(LockHandle::close);
        }
    }

    @Test
    void keyPrefixSeparatesApplications() throws Exception {
        String key = key();
        LockRegistry orders = newRegistry(
                RegistryOptions.defaults().withLeaseTime(holdLeaseTime()).withKeyPrefix("orders:"));
        LockRegistry billing = newRegistry(
                RegistryOptions.defaults().withLeaseTime(holdLeaseTime()).withKeyPrefix("billing:"));
        LockRegistry moreOrders = newRegistry(
                RegistryOptions.defaults().withLeaseTime(holdLeaseTime()).withKeyPrefix("orders:"));
        try (LockHandle held = orders.obtain(key).acquire()) {
            assertThat(held.key()).isEqualTo(key);
            Optional<LockHandle> other = tryNow(billing, key);
            assertThat(other).isPresent();
            other.get().close();
            assertThat(tryNow(moreOrders, key)).isEmpty();
        }
    }

    // --- 10. Bad input -------------------------------------------------------------------

    @Test
    void nullAndBlankKeysAreRejected() {
        assertThatThrownBy(() -> registryA.obtain(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null")
                .hasMessageContaining(registryA.backend());
        assertThatThrownBy(() -> registryA.obtain("  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
    }

    @Test
    void oversizedKeyIsRejectedWithItsLimit() {
        String huge = "k".repeat(100_000);
        assertThatThrownBy(() -> registryA.obtain(huge))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(registryA.backend())
                .hasMessageContaining("at most");
    }

    @Test
    void negativeDurationsAreRejected() {
        FencedLock lock = registryA.obtain(key());
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime")
                .hasMessageContaining(lock.key());
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThat(lock.holdCount()).isZero();
    }

    @Test
    void conditionsAreNotSupported() {
        FencedLock lock = registryA.obtain(key());
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void registryNamesItsBackend() {
        assertThat(registryA.backend()).isIn("redis", "zookeeper", "etcd", "jdbc", "memory");
        assertThat(registryA.obtain(key()).key()).startsWith("contract-");
    }

    // --- 3, 4 and 8. Edges of a hold's life: closing, interrupts, loss -------------------

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

    @Test
    void releaseOnAnInterruptedThreadCompletesAndKeepsTheFlag() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        LockHandle handle = lock.acquire();
        lock.lock();
        Thread.currentThread().interrupt();
        try {
            lock.unlock();
            handle.close();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
        assertThat(next).as("the interrupted release freed the key").isPresent();
        next.get().close();
    }

    @Test
    void unlockAfterTheRegistryClosedIsANoOp() throws Exception {
        LockRegistry closing = newRegistry();
        FencedLock lock = closing.obtain(key());
        lock.lock();
        closing.close();
        lock.unlock();
        assertThat(lock.holdCount()).isZero();
    }

    @Test
    void expiredLeaseLetsOtherThreadsOfTheOwnerRegistryCompete() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        LockHandle stuck =
                expiring.obtain(key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Future<LockHandle> sameRegistry = inThread(() -> expiring.obtain(key)
                .tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3))
                .orElse(null));
        LockHandle next = await(sameRegistry);
        assertThat(next)
                .as("another thread of the owner's registry gets the key once the lease ended")
                .isNotNull();
        assertThat(next.token().isNewerThan(stuck.token())).isTrue();
        stuck.close();
        assertThat(next.isValid())
                .as("the stale release does not end the new hold")
                .isTrue();
        assertThat(tryNow(registryB, key)).isEmpty();
        inThread(() -> {
                    next.close();
                    return null;
                })
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void onLostRunsOnceWhenTheLeaseIsLostAndNeverOnRelease() throws Exception {
        LockRegistry shortLeases = shortLeaseRegistry();
        AtomicInteger lostCalls = new AtomicInteger();
        AtomicInteger releasedCalls = new AtomicInteger();
        LockHandle expiring = shortLeases
                .obtain(key("expiring"))
                .tryAcquire(Duration.ZERO, leaseTime())
                .orElseThrow();
        expiring.onLost(lostCalls::incrementAndGet);
        try (LockHandle released = shortLeases.obtain(key("released")).acquire()) {
            released.onLost(releasedCalls::incrementAndGet);
        }
        awaitInvalid(expiring);
        long deadline = System.nanoTime() + timingSlack().toNanos() * 2;
        while (lostCalls.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(lostCalls).hasValue(1);
        AtomicInteger late = new AtomicInteger();
        expiring.onLost(late::incrementAndGet);
        assertThat(late).as("a callback added after the loss runs at once").hasValue(1);
        expiring.close();
        Thread.sleep(100);
        assertThat(lostCalls).hasValue(1);
        assertThat(releasedCalls).hasValue(0);
    }

    @Test
    void handleWithASubMillisecondLeaseIsNeverValidWhileAnotherOwnerHolds() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        for (int round = 0; round < 20; round++) {
            String key = key("r" + round);
            LockHandle fixed = expiring.obtain(key)
                    .tryAcquire(Duration.ZERO, Duration.ofNanos(2_900_000))
                    .orElseThrow();
            Optional<LockHandle> next = Optional.empty();
            while (next.isEmpty()) {
                next = tryNow(registryB, key);
            }
            assertThat(fixed.isValid())
                    .as("round %d: the handle is valid while another owner holds the key", round)
                    .isFalse();
            next.get().close();
            fixed.close();
        }
    }

    private void awaitInvalid(LockHandle handle) throws InterruptedException {
        long deadline = System.nanoTime()
                + leaseTime().plus(timingSlack()).multipliedBy(2).toNanos();
        while (handle.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).as("the lease ended").isFalse();
    }

    private static Throwable failureOf(Callable<?> task) {
        try {
            task.call();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    // --- 4. Leases: extending a fixed lease, minimum holds -------------------------------

    @Test
    void extendKeepsAFixedLeasePastItsFirstEnd() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        try (LockHandle held =
                expiring.obtain(key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow()) {
            Thread.sleep(leaseTime().toMillis() / 2);
            assertThat(held.extend(leaseTime().multipliedBy(3))).isTrue();
            Thread.sleep(leaseTime().plus(timingSlack()).toMillis());
            assertThat(held.isValid())
                    .as("valid past the first end of its lease")
                    .isTrue();
            assertThat(tryNow(registryB, key)).as("still excludes others").isEmpty();
        }
    }

    @Test
    void extendRefusesAHoldThatIsAlreadyLost() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        LockHandle lost =
                expiring.obtain(key()).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        awaitInvalid(lost);
        assertThat(lost.extend(leaseTime())).isFalse();
        assertThat(lost.isValid()).isFalse();
        lost.close();
    }

    @Test
    void extendOfAWatchdogHoldIsRefused() throws Exception {
        try (LockHandle renewed = registryA.obtain(key()).acquire()) {
            assertThatThrownBy(() -> renewed.extend(leaseTime()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("watchdog");
        }
    }

    @Test
    void minimumHoldKeepsTheKeyHeldAfterAnEarlyRelease() throws Exception {
        String key = key();
        Duration minimum = leaseTime().multipliedBy(2);
        long start = System.nanoTime();
        FencedLock lock = registryA.obtain(key);
        LockHandle held = lock.tryAcquire(Duration.ZERO).orElseThrow();
        held.holdAtLeast(minimum);
        held.close();
        assertThat(lock.holdCount()).as("the releasing thread goes on").isZero();
        assertThat(tryNow(registryB, key)).as("held until the minimum ends").isEmpty();
        Optional<LockHandle> next =
                registryB.obtain(key).tryAcquire(minimum.plus(timingSlack()).multipliedBy(2));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(next).as("free once the minimum hold ended").isPresent();
        assertThat(waited).isGreaterThanOrEqualTo(minimum.minusMillis(20));
        assertThat(next.get().token().isNewerThan(held.token())).isTrue();
        next.get().close();
    }

    @Test
    void closingTheRegistryLeavesALingeringMinimumHoldUntilItEnds() throws Exception {
        String key = key();
        Duration minimum = leaseTime().multipliedBy(3);
        LockRegistry closing = newRegistry();
        long start = System.nanoTime();
        LockHandle held = closing.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
        held.holdAtLeast(minimum);
        held.close();
        closing.close(); // a rolling restart: the instance goes while the minimum still runs
        assertThat(tryNow(registryB, key))
                .as("still held after the registry closed, until the minimum ends")
                .isEmpty();
        Optional<LockHandle> next =
                registryB.obtain(key).tryAcquire(minimum.plus(timingSlack()).multipliedBy(2));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(next).as("free once the minimum hold ended").isPresent();
        assertThat(waited).isGreaterThanOrEqualTo(minimum.minusMillis(20));
        assertThat(next.get().token().isNewerThan(held.token())).isTrue();
        next.get().close();
    }

    @Test
    void minimumHoldThatAlreadyPassedReleasesAtOnce() throws Exception {
        String key = key();
        LockHandle held = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
        held.holdAtLeast(Duration.ofMillis(1));
        Thread.sleep(20);
        held.close();
        Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
        assertThat(next).isPresent();
        next.get().close();
    }

    // --- 12. Asynchronous holds: owned by their handle -----------------------------------

    @Test
    void asyncHoldsNeverOverlapWithThreadOwnedOrOtherAsyncHolds() throws Exception {
        String key = key();
        OverlapDetector detector = new OverlapDetector(2);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService closers = Executors.newSingleThreadExecutor();
        List<Future<Void>> workers = new ArrayList<>();
        int passes = 6;
        for (LockRegistry registry : List.of(registryA, registryB)) {
            workers.add(inThread(() -> {
                start.await();
                for (int i = 0; i < passes; i++) {
                    try (LockHandle handle = registry.obtain(key)
                            .tryAcquire(Duration.ofSeconds(60))
                            .orElseThrow()) {
                        detector.criticalSection();
                    }
                }
                return null;
            }));
            for (int t = 0; t < 2; t++) {
                workers.add(inThread(() -> {
                    start.await();
                    for (int i = 0; i < passes; i++) {
                        LockHandle handle = registry.obtain(key)
                                .acquireAsync(Duration.ofSeconds(60))
                                .get(60, TimeUnit.SECONDS)
                                .orElseThrow();
                        detector.criticalSection();
                        closers.submit(handle::close).get(10, TimeUnit.SECONDS); // released by another thread
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            await(worker);
        }
        closers.shutdown();
        assertThat(detector.completed()).isEqualTo(6 * passes);
        assertThat(detector.count())
                .as("lost updates mean two owners overlapped")
                .isEqualTo(6 * passes);
        assertThat(detector.maxActive()).isEqualTo(1);
    }

    @Test
    void asyncAcquisitionIsNotReentrant() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        try (LockHandle threadOwned = lock.acquire()) {
            assertThat(lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS))
                    .as("a handle-owned hold excludes the thread that holds the key")
                    .isEmpty();
        }
        LockHandle first =
                lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(lock.tryAcquire(Duration.ZERO))
                .as("and the thread-owned API too")
                .isEmpty();
        assertThat(lock.holdCount()).as("no thread owns a handle-owned hold").isZero();
        first.close();
        assertThat(first.isValid()).isFalse();
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).isPresent();
        after.get().close();
    }

    @Test
    void asyncAcquisitionHonoursItsWaitTimeWithoutBlockingTheCaller() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).acquire()) {
            Duration longWait = Duration.ofSeconds(10);
            long called = System.nanoTime();
            CompletableFuture<Optional<LockHandle>> blocked =
                    registryB.obtain(key).acquireAsync(longWait);
            assertThat(Duration.ofNanos(System.nanoTime() - called))
                    .as("the caller gets the future back long before the wait ends")
                    .isLessThan(longWait.dividedBy(2));
            assertThat(blocked).isNotDone();
            assertThat(blocked.cancel(true)).isTrue();
            Duration wait = Duration.ofMillis(400);
            long start = System.nanoTime();
            CompletableFuture<Optional<LockHandle>> pending =
                    registryB.obtain(key).acquireAsync(wait);
            assertThat(pending.get(30, TimeUnit.SECONDS)).isEmpty();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isGreaterThanOrEqualTo(wait.minusMillis(50)).isLessThan(wait.plus(timingSlack()));
        }
    }

    @Test
    void cancellingAPendingAsyncAcquisitionTakesNothing() throws Exception {
        String key = key();
        LockHandle held = registryB.obtain(key).acquire();
        CompletableFuture<Optional<LockHandle>> pending = registryA.obtain(key).acquireAsync(Duration.ofSeconds(60));
        Thread.sleep(200);
        assertThat(pending.cancel(true)).isTrue();
        held.close();
        Thread.sleep(200);
        Optional<LockHandle> next = newRegistry().obtain(key).tryAcquire(timingSlack());
        assertThat(next).as("the cancelled attempt left nothing held").isPresent();
        next.get().close();
    }

    @Test
    void cancellingAnAsyncAcquisitionAsTheKeyFreesLeavesNothingHeld() throws Exception {
        // The cancellation lands at a different point of the hand-over in each round: before, while and after
        // the waiting attempt is granted. Interrupting the attempt there once left the grant on the server.
        for (int round = 0; round < 60; round++) {
            String key = key();
            LockHandle held =
                    registryA.obtain(key).acquireAsync(timingSlack()).get().orElseThrow();
            CompletableFuture<Optional<LockHandle>> pending =
                    registryA.obtain(key).acquireAsync(Duration.ofSeconds(60));
            Thread.sleep(5);
            held.close();
            long spinUntil = System.nanoTime() + (round % 20) * 50_000L;
            while (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            if (!pending.cancel(true)) {
                pending.get().ifPresent(LockHandle::close); // granted before the cancellation: ours to close
            }
            Optional<LockHandle> next = registryB.obtain(key).tryAcquire(timingSlack());
            assertThat(next)
                    .as("round %d: the cancelled attempt left nothing held", round)
                    .isPresent();
            next.get().close();
        }
    }

    @Test
    void asyncHoldsGetRisingTokensAndKeepTheirLease() throws Exception {
        LockRegistry renewing = shortLeaseRegistry();
        String key = key();
        FencedLock lock = renewing.obtain(key);
        LockHandle first =
                lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS).orElseThrow();
        Thread.sleep(leaseTime().multipliedBy(2).toMillis());
        assertThat(first.isValid())
                .as("the watchdog renews a handle-owned hold")
                .isTrue();
        assertThat(tryNow(registryB, key)).isEmpty();
        first.close();
        LockHandle second = registryB
                .obtain(key)
                .acquireAsync(timingSlack())
                .get(30, TimeUnit.SECONDS)
                .orElseThrow();
        assertThat(second.token().isNewerThan(first.token())).isTrue();
        second.close();
    }

    // --- 11. Operations: who holds a key, evicting a holder ------------------------------

    @Test
    void holderOfNamesTheHolderInAnotherRegistry() throws Exception {
        String key = key();
        LockRegistry other = newRegistry(
                RegistryOptions.defaults().withLeaseTime(holdLeaseTime()).withApplicationName("contract-app"));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<FencingToken> token = new AtomicReference<>();
        Thread holder = new Thread(
                () -> {
                    try (LockHandle handle = other.obtain(key).acquire()) {
                        token.set(handle.token());
                        holding.countDown();
                        done.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "holder-thread-1");
        holder.start();
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            LockHolder seen = registryA.holderOf(key).orElseThrow(() -> new AssertionError("no holder seen"));
            assertThat(seen.holder()).contains("contract-app").contains("holder-thread-1");
            assertThat(seen.token()).isEqualTo(token.get());
        } finally {
            done.countDown();
            holder.join(10_000);
        }
        assertThat(registryA.holderOf(key))
                .as("nobody holds it after the release")
                .isEmpty();
    }

    @Test
    void forceReleaseEvictsTheHolderAndTheNextOwnerGetsALargerToken() throws Exception {
        String key = key();
        assertThat(registryA.forceRelease(key)).as("nothing to evict").isFalse();
        LockHandle stuck = registryB.obtain(key).acquire();
        assertThat(registryA.forceRelease(key)).isTrue();
        Optional<LockHandle> next = registryA.obtain(key).tryAcquire(timingSlack());
        assertThat(next).as("the key is free after the eviction").isPresent();
        assertThat(next.get().token().isNewerThan(stuck.token())).isTrue();
        stuck.close(); // the evicted holder's late release must not free the next owner
        assertThat(tryNow(newRegistry(), key)).isEmpty();
        next.get().close();
    }
}
