package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Contract rule 12, asynchronous holds: owned by their handle, never reentrant, same leases and tokens. */
abstract class Rule12AsynchronousHolds extends LockGroup {

    Rule12AsynchronousHolds(LockRegistryContract contract) {
        super(contract);
    }

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
    void aDetachedHoldBelongsToItsHandleAndAnInterruptedDetachedWaitTakesNothing() throws Exception {
        String key = key();
        FencedLock lock = registryA.obtain(key);
        LockHandle detached = lock.tryAcquireDetached(Duration.ZERO).orElseThrow();
        assertThat(lock.holdCount()).as("no thread owns a detached hold").isZero();
        assertThat(lock.tryAcquireDetached(Duration.ZERO))
                .as("a detached hold is not reentrant")
                .isEmpty();
        assertThat(lock.tryAcquire(Duration.ZERO))
                .as("it excludes the thread that took it")
                .isEmpty();
        assertThat(tryNow(registryB, key)).as("and every other registry").isEmpty();

        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.set(registryB.obtain(key).tryAcquireDetached(Duration.ofSeconds(60)));
            } catch (InterruptedException e) {
                outcome.set(e);
            }
        });
        waiter.start();
        Thread.sleep(200);
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(waiter.isAlive()).as("the interrupted wait ended").isFalse();
        assertThat(outcome.get()).as("an interrupted detached wait throws").isInstanceOf(InterruptedException.class);

        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            closer.submit(detached::close).get(10, TimeUnit.SECONDS); // released by another thread
        } finally {
            closer.shutdown();
        }
        assertThat(detached.isValid()).isFalse();
        Optional<LockHandle> after = newRegistry().obtain(key).tryAcquire(timingSlack());
        assertThat(after)
                .as("neither the closed hold nor the interrupted wait left the key held")
                .isPresent();
        after.get().close();
    }

    /** A backend that cannot check the guard with the take refuses the call, naming the key, and takes nothing. */
    private void saysItCannotCheck(FencedLock lock, String guard) throws InterruptedException {
        assertThatThrownBy(() -> lock.tryAcquireUnlessHeld(guard))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(lock.key())
                .hasMessageContaining(registryA.backend());
        assertThat(tryNow(registryB, lock.key()))
                .as("nothing was taken")
                .isPresent()
                .get()
                .satisfies(LockHandle::close);
    }

    @Test
    void aTakeUnlessAnotherKeyIsHeldIsRefusedWhileThatKeyIsHeldOrSaysItCannotCheck() throws Exception {
        String key = key("guarded");
        String guard = key("guard");
        FencedLock lock = registryA.obtain(key);
        if (!guardsTakes(key, guard)) {
            saysItCannotCheck(lock, guard);
            return;
        }
        try (LockHandle guarding =
                registryB.obtain(guard).tryAcquireDetached(Duration.ZERO).orElseThrow()) {
            assertThat(lock.tryAcquireUnlessHeld(guard))
                    .as("refused while another registry holds the guard")
                    .isEmpty();
            assertThat(registryB.holderOf(key)).as("and nothing was taken").isEmpty();
            assertThat(guarding.isValid()).as("the guard is only read").isTrue();
        }
        LockHandle granted = lock.tryAcquireUnlessHeld(guard).orElseThrow();
        try {
            assertThat(lock.holdCount()).as("the hold belongs to its handle").isZero();
            assertThat(tryNow(registryB, key))
                    .as("it excludes other registries")
                    .isEmpty();
            assertThat(lock.tryAcquireUnlessHeld(guard))
                    .as("not reentrant, like any detached hold")
                    .isEmpty();
            assertThat(tryNow(registryB, guard))
                    .as("the guard was not taken")
                    .isPresent()
                    .get()
                    .satisfies(LockHandle::close);
        } finally {
            granted.close();
        }
        LockHandle fixed = lock.tryAcquireUnlessHeld(guard, leaseTime()).orElseThrow();
        awaitInvalid(fixed); // a fixed lease is not renewed
        assertThat(tryNow(registryB, key))
                .as("free once the fixed lease ended")
                .isPresent()
                .get()
                .satisfies(LockHandle::close);
        fixed.close();
    }

    @Test
    void asyncAcquisitionHonoursItsWaitTimeWithoutBlockingTheCaller(TestInfo test) throws Exception {
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
            WaitBounds.check(this, test, () -> {
                long start = System.nanoTime();
                CompletableFuture<Optional<LockHandle>> pending =
                        registryB.obtain(key).acquireAsync(wait);
                assertThat(pending.get(30, TimeUnit.SECONDS)).isEmpty();
                Timed timed = Timed.since(start, wait.plus(timingSlack()));
                assertThat(timed.took()).isGreaterThanOrEqualTo(wait.minusMillis(50));
                return timed;
            });
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
}
