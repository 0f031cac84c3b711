package dev.distlock.core.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Edge cases of {@link LeasedSemaphore} on the in-memory backend; the rules every backend keeps are in the kit. */
class LeasedSemaphoreTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    private final MemoryLockStore store = new MemoryLockStore();
    private final List<LockRegistry> registries = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final LockRegistry a = registry();
    private final LockRegistry b = registry();

    @AfterEach
    void close() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        registries.forEach(LockRegistry::close);
    }

    private LockRegistry registry() {
        LockRegistry registry = MemoryLockRegistry.builder()
                .store(store)
                .options(RegistryOptions.defaults().withApplicationName("test"))
                .build();
        registries.add(registry);
        return registry;
    }

    @Test
    void grantsUpToThePermitCountAndRecordsTheCountWithEachHold() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "pool", 3);
        LeasedSemaphore onB = LeasedSemaphore.of(b, "pool", 3);
        Permits two = onA.tryAcquire(2, Duration.ZERO).orElseThrow();
        Permits one = onB.tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(two.count()).isEqualTo(2);
        assertThat(two.list())
                .extracting(Permit::slot)
                .doesNotContainAnyElementsOf(List.of(one.list().get(0).slot()));
        assertThat(onB.tryAcquire(Duration.ZERO))
                .as("all three permits are held")
                .isEmpty();
        List<LockHolder> holders = onB.holders();
        assertThat(holders).hasSize(3);
        assertThat(holders).allSatisfy(holder -> assertThat(holder.note()).contains("permits=3"));
        assertThat(two.list().get(0).key())
                .isEqualTo(onA.slotKey(two.list().get(0).slot()));
        two.list().get(0).close();
        Permits freed = onB.tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(freed.list().get(0).slot()).isEqualTo(two.list().get(0).slot());
        two.close();
        one.close();
        freed.close();
        assertThat(onA.holders()).isEmpty();
        assertThat(a.holderOf(onA.queueKey())).as("the queue is left free").isEmpty();
    }

    @Test
    void aZeroWaitFindsTheOneFreePermitWhereverItIs() throws Exception {
        LeasedSemaphore semaphore = LeasedSemaphore.of(a, "sweep", 20);
        Permits most = semaphore.tryAcquire(19, Duration.ZERO).orElseThrow();
        for (int round = 0; round < 30; round++) {
            Optional<Permits> last = LeasedSemaphore.of(b, "sweep", 20).tryAcquire(Duration.ZERO);
            assertThat(last).as("round %d", round).isPresent();
            last.get().close();
        }
        most.close();
    }

    @Test
    void aWaiterForSeveralPermitsTakesThemAsTheyFreeAndIsNotOvertaken() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "batch", 3);
        List<Permits> singles = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            singles.add(onA.tryAcquire(Duration.ZERO).orElseThrow());
        }
        Future<Optional<Permits>> all =
                threads.submit(() -> LeasedSemaphore.of(b, "batch", 3).tryAcquire(3, LONG));
        awaitHeld(a, onA.waitingKey());
        Future<Optional<Permits>> later =
                threads.submit(() -> LeasedSemaphore.of(registry(), "batch", 3).tryAcquire(LONG));
        Thread.sleep(50);
        singles.get(0).close();
        singles.get(1).close();
        Thread.sleep(100);
        assertThat(later).as("the later waiter does not take a freed permit").isNotDone();
        assertThat(all).isNotDone();
        singles.get(2).close();
        Permits three = all.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(three.count()).isEqualTo(3);
        assertThat(three.isValid()).isTrue();
        assertThat(later).isNotDone();
        three.close();
        later.get(10, TimeUnit.SECONDS).orElseThrow().close();
    }

    @Test
    void aWaitThatRunsOutGivesBackThePermitsItTook() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "all-or-nothing", 2);
        Permits one = onA.tryAcquire(Duration.ZERO).orElseThrow();
        long start = System.nanoTime();
        assertThat(LeasedSemaphore.of(b, "all-or-nothing", 2).tryAcquire(2, Duration.ofMillis(200)))
                .isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
        assertThat(onA.holders()).as("only the first permit is held").hasSize(1);
        one.close();
        // Its withdrawn wait for the held permit may still take it and give it back (contract 12).
        onA.tryAcquire(2, Duration.ofSeconds(5)).orElseThrow().close();
    }

    @Test
    void cancellingAnAsyncAcquisitionAndInterruptingACallerLeaveNothingHeld() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "cancel", 2);
        Permits full = onA.tryAcquire(2, Duration.ZERO).orElseThrow();
        CompletableFuture<Optional<Permits>> pending =
                LeasedSemaphore.of(b, "cancel", 2).acquireAsync(1, LONG);
        awaitHeld(a, onA.queueKey());
        assertThat(pending.cancel(true)).isTrue();

        AtomicReference<Thread> caller = new AtomicReference<>();
        CountDownLatch calling = new CountDownLatch(1);
        Future<Throwable> interrupted = threads.submit(() -> {
            caller.set(Thread.currentThread());
            calling.countDown();
            try {
                LeasedSemaphore.of(b, "cancel", 2).tryAcquire(2, LONG);
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        calling.await();
        Thread.sleep(50);
        caller.get().interrupt();
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        full.close();
        Permits again = LeasedSemaphore.of(registry(), "cancel", 2)
                .tryAcquire(2, Duration.ofSeconds(5))
                .orElseThrow();
        again.close();
    }

    @Test
    void threadsOfOneRegistryBeyondThePermitCountWaitInTheJvmNotAtTheServer() throws Exception {
        List<String> keysAsked = java.util.Collections.synchronizedList(new ArrayList<>());
        LockRegistry watched = recording(a, "semaphoreLock", keysAsked);
        LeasedSemaphore semaphore = LeasedSemaphore.of(watched, "local", 2);
        Permits first = semaphore.tryAcquire(Duration.ZERO).orElseThrow();
        Permits second = semaphore.tryAcquire(Duration.ZERO).orElseThrow();
        keysAsked.clear();
        Future<Optional<Permits>> third = threads.submit(() -> semaphore.tryAcquire(LONG));
        Thread.sleep(200);
        assertThat(third).as("both permits are this registry's").isNotDone();
        assertThat(keysAsked)
                .as("a thread whose registry holds every permit asks the server for nothing")
                .isEmpty();
        assertThat(semaphore.tryAcquire(Duration.ZERO))
                .as("a zero wait finds nothing free here")
                .isEmpty();
        first.close();
        Permits got = third.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(got.isValid()).isTrue();
        got.close();
        second.close();
        // Another registry is not held back by this one's local permits.
        LeasedSemaphore.of(b, "local", 2)
                .tryAcquire(2, Duration.ZERO)
                .orElseThrow()
                .close();
    }

    @Test
    void anAcquisitionTriesTheSlotsItsOwnRegistryDoesNotHoldFirst() throws Exception {
        List<String> keysAsked = java.util.Collections.synchronizedList(new ArrayList<>());
        LockRegistry watched = recording(a, "semaphoreLock", keysAsked);
        LeasedSemaphore semaphore = LeasedSemaphore.of(watched, "spread", 2);
        try (Permits held = semaphore.tryAcquire(Duration.ZERO).orElseThrow()) {
            String heldKey = held.list().get(0).key();
            // A random first slot would meet the held one about every other time: 30 misses in a row would be chance
            // of one in a billion.
            for (int i = 0; i < 30; i++) {
                keysAsked.clear();
                try (Permits other = semaphore.tryAcquire(Duration.ZERO).orElseThrow()) {
                    assertThat(other.list().get(0).key()).isNotEqualTo(heldKey);
                }
                assertThat(keysAsked)
                        .as("keys asked for while this registry holds %s", heldKey)
                        .doesNotContain(heldKey);
            }
        }
        // Another registry's hold is no hint: the other registry still finds the one free slot.
        try (Permits onA =
                LeasedSemaphore.of(a, "spread", 2).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(LeasedSemaphore.of(b, "spread", 2).tryAcquire(Duration.ZERO))
                    .as("the free slot, from another registry")
                    .isPresent()
                    .get()
                    .satisfies(Permits::close);
        }
    }

    @Test
    void aLostPermitGivesItsLocalPermitBackAndAChurnOfNamesKeepsNoLocalEntry() throws Exception {
        int entriesBefore = LocalPermits.entries();
        LeasedSemaphore onA = LeasedSemaphore.of(a, "lapsed", 1);
        Permits dropped =
                onA.tryAcquire(1, Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
        // Not closed by its holder: once its lease runs out, the same registry may acquire the permit again.
        Permits again = onA.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(dropped.isValid()).isFalse();
        again.close();
        dropped.close(); // a late close gives nothing back twice
        Permits once = onA.tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(onA.tryAcquire(Duration.ZERO))
                .as("one permit, one local permit")
                .isEmpty();
        once.close();
        for (int i = 0; i < 200; i++) {
            LeasedSemaphore.of(a, "churn-" + i, 2)
                    .tryAcquire(2, Duration.ZERO)
                    .orElseThrow()
                    .close();
        }
        Optional<Permits> timedOut = LeasedSemaphore.of(b, "busy", 1).tryAcquire(Duration.ZERO);
        timedOut.ifPresent(Permits::close);
        assertThat(LocalPermits.entries())
                .as("local entries once every permit was given back")
                .isEqualTo(entriesBefore);
    }

    @Test
    void aPermitWhoseFixedLeaseRunsOutIsLostAndReturns() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "crash", 1);
        Permits dropped =
                onA.tryAcquire(1, Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        dropped.onLost(lost::incrementAndGet);
        Permits next = LeasedSemaphore.of(b, "crash", 1)
                .tryAcquire(Duration.ofSeconds(5))
                .orElseThrow();
        assertThat(next.list().get(0).token().isNewerThan(dropped.list().get(0).token()))
                .isTrue();
        assertThat(dropped.isValid()).isFalse();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lost.get() == 0 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(lost).hasValue(1);
        AtomicInteger late = new AtomicInteger();
        dropped.onLost(late::incrementAndGet);
        assertThat(late).as("a callback added after the loss runs at once").hasValue(1);
        dropped.close();
        assertThat(next.isValid())
                .as("the stale release leaves the next holder alone")
                .isTrue();
        next.close();
    }

    @Test
    void differentCountsForOneNameFailWhenTheyMeetOnAHeldPermitOrTheQueue() throws Exception {
        Permits both =
                LeasedSemaphore.of(a, "count", 2).tryAcquire(2, Duration.ZERO).orElseThrow();
        assertThatThrownBy(() -> LeasedSemaphore.of(b, "count", 1).tryAcquire(Duration.ofSeconds(1)))
                .isInstanceOf(PermitCountConflictException.class)
                .hasMessageContaining("'count'")
                .hasMessageContaining("memory")
                .hasMessageContaining("1 permits here")
                .hasMessageContaining("with 2 by the holder")
                .satisfies(e -> assertThat(((PermitCountConflictException) e).otherPermits())
                        .hasValue(2));
        // A waiter of another registry (this one's threads would wait in the JVM for the permits it holds) holds
        // <name>:permit:waiting: a declaration of 3 meets it there, or on the held permit it tries first.
        LockRegistry third = registry();
        Future<Optional<Permits>> waiter =
                threads.submit(() -> LeasedSemaphore.of(third, "count", 2).tryAcquire(LONG));
        awaitHeld(b, "count:permit:waiting");
        assertThatThrownBy(() -> LeasedSemaphore.of(b, "count", 3).tryAcquire(Duration.ofSeconds(1)))
                .isInstanceOf(PermitCountConflictException.class)
                .hasMessageContaining("3 permits here")
                .hasMessageContaining("with 2 by the holder of 'count:");
        both.close();
        waiter.get(10, TimeUnit.SECONDS).orElseThrow().close();
        // The waiter's withdrawn wait for the other permit may take it and give it back (contract 12).
        LeasedSemaphore two = LeasedSemaphore.of(b, "count", 2);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!two.holders().isEmpty() && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(two.holders()).as("the refused acquisitions took nothing").isEmpty();
    }

    @Test
    void aLockOnASlotKeyThatIsNoPermitIsReportedAsAnotherUseOfTheKey() throws Exception {
        try (LockHandle plain = a.semaphoreLock("shared:permit:0").acquire()) {
            assertThatThrownBy(() -> LeasedSemaphore.of(b, "shared", 1).tryAcquire(Duration.ZERO))
                    .isInstanceOf(PermitCountConflictException.class)
                    .hasMessageContaining("not a permit of this semaphore")
                    .satisfies(e -> assertThat(((PermitCountConflictException) e).otherPermits())
                            .isEmpty());
        }
    }

    @Test
    void closingTheRegistryEndsAWaiter() throws Exception {
        LockRegistry closing = registry();
        Permits full =
                LeasedSemaphore.of(a, "closing", 1).tryAcquire(Duration.ZERO).orElseThrow();
        Future<Throwable> waiter = threads.submit(() -> {
            try {
                LeasedSemaphore.of(closing, "closing", 1).tryAcquire(LONG);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        awaitHeld(a, "closing:permit:waiting");
        closing.close();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        full.close();
        LeasedSemaphore.of(b, "closing", 1)
                .tryAcquire(Duration.ofSeconds(5))
                .orElseThrow()
                .close();
    }

    @Test
    void badInputIsRefusedNamingTheSemaphoreAndTheBackend() {
        assertThatThrownBy(() -> LeasedSemaphore.of(a, null, 1))
                .hasMessageContaining("null")
                .hasMessageContaining("memory");
        assertThatThrownBy(() -> LeasedSemaphore.of(a, " ", 1)).hasMessageContaining("blank");
        assertThatThrownBy(() -> LeasedSemaphore.of(a, "s", 0))
                .hasMessageContaining("'s'")
                .hasMessageContaining("1 to 1024");
        assertThatThrownBy(() -> LeasedSemaphore.of(a, "s", LeasedSemaphore.MAX_PERMITS + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeasedSemaphore.of(a, "x".repeat(5000), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be kept on memory")
                .hasMessageContaining("at most 4096");
        LeasedSemaphore semaphore = LeasedSemaphore.of(a, "s", 2);
        assertThatThrownBy(() -> semaphore.tryAcquire(0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ask for 1 to 2, not 0");
        assertThatThrownBy(() -> semaphore.tryAcquire(3, Duration.ZERO)).hasMessageContaining("not 3");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofSeconds(-1)))
                .hasMessageContaining("waitTime must be zero or more")
                .hasMessageContaining("'s'");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("leaseTime must be positive");
        assertThatThrownBy(() -> semaphore.tryAcquire(null)).hasMessageContaining("waitTime must not be null");
        assertThatThrownBy(() -> semaphore.slotKey(2)).hasMessageContaining("0 to 1");
    }

    @Test
    void permitsCloseEachPermitOnceAndReportTheirState() throws Exception {
        LeasedSemaphore semaphore = LeasedSemaphore.of(a, "close", 3);
        Permits permits = semaphore.tryAcquire(3, Duration.ZERO).orElseThrow();
        assertThat(permits.list()).extracting(Permit::slot).containsExactly(0, 1, 2);
        assertThat(permits.semaphore()).isEqualTo("close");
        permits.list().get(1).close();
        assertThat(permits.isValid()).as("one permit given back").isFalse();
        assertThat(permits.list().get(0).isValid()).isTrue();
        assertThat(semaphore.holders()).hasSize(2);
        permits.close();
        permits.close();
        assertThat(semaphore.holders()).isEmpty();
    }

    @Test
    void concurrentAcquisitionsNeverExceedThePermits() throws Exception {
        int permits = 2;
        AtomicInteger active = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LeasedSemaphore semaphore = LeasedSemaphore.of(t % 2 == 0 ? a : b, "bounded", permits);
            int wanted = t % 3 == 0 ? 2 : 1;
            workers.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 10; i++) {
                    try (Permits held = semaphore.tryAcquire(wanted, LONG).orElseThrow()) {
                        int now = active.addAndGet(wanted);
                        max.accumulateAndGet(now, Math::max);
                        Thread.sleep(2);
                        active.addAndGet(-wanted);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(max.get()).isBetween(1, permits);
    }

    private static void awaitHeld(LockRegistry registry, String key) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (registry.holderOf(key).isEmpty()) {
            assertThat(System.nanoTime()).as("'%s' was not held in time", key).isLessThan(until);
            Thread.sleep(5);
        }
    }

    @Test
    void anUncontendedAcquisitionLeavesTheQueueAlone() throws Exception {
        List<String> obtained = java.util.Collections.synchronizedList(new ArrayList<>());
        LockRegistry watched = recording(a, "semaphoreLock", obtained);
        LeasedSemaphore semaphore = LeasedSemaphore.of(watched, "quiet", 3);
        obtained.clear(); // of() checks the longest keys once
        try (Permits permits = semaphore.tryAcquire(2, LONG).orElseThrow()) {
            assertThat(permits.count()).isEqualTo(2);
        }
        assertThat(obtained).as("queue locks obtained").noneMatch(key -> key.endsWith(":permit:queue"));
    }

    @Test
    void aSingleSlotTakeChecksTheWaitingKeyInTheSameStepWhereTheBackendCan() throws Exception {
        List<String> reads = java.util.Collections.synchronizedList(new ArrayList<>());
        LockRegistry watched = recording(a, "holderOf", reads);
        LeasedSemaphore semaphore = LeasedSemaphore.of(watched, "guarded", 2);
        reads.clear();
        try (Permits permit = semaphore.tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(permit.isValid()).isTrue();
        }
        assertThat(reads)
                .as("holders read by an uncontended tryAcquire on memory")
                .isEmpty();
        // Somebody waits for releases: the guarded take is refused, and only then is <name>:permit:waiting read.
        LeasedSemaphore onB = LeasedSemaphore.of(b, "guarded", 2);
        try (LockHandle waiting =
                onB.lock(onB.waitingKey()).tryAcquireDetached(Duration.ZERO).orElseThrow()) {
            assertThat(semaphore.tryAcquire(Duration.ZERO))
                    .as("overtook the waiter")
                    .isEmpty();
            assertThat(reads).contains(semaphore.waitingKey());
            assertThat(semaphore.holders()).as("slots left taken").isEmpty();
        }
    }

    @Test
    void anAcquisitionThatFindsAnotherWaitingForReleasesNeverKeepsAFreeSlot() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "queued", 2);
        // Another instance leads the queue and waits for releases, as one does when it found too few free slots:
        // every slot is free now, but taking one would overtake it.
        LeasedSemaphore onB = LeasedSemaphore.of(b, "queued", 2);
        try (LockHandle queued = onB.lock(onB.queueKey())
                        .tryAcquireDetached(Duration.ZERO)
                        .orElseThrow();
                LockHandle waiting = onB.lock(onB.waitingKey())
                        .tryAcquireDetached(Duration.ZERO)
                        .orElseThrow()) {
            assertThat(onA.tryAcquire(1, Duration.ofMillis(200)))
                    .as("overtook the waiting acquisition")
                    .isEmpty();
            assertThat(onA.tryAcquire(1, Duration.ZERO))
                    .as("a zero wait overtook it")
                    .isEmpty();
            assertThat(onA.holders()).as("slots left taken").isEmpty();
        }
        assertThat(onA.tryAcquire(1, Duration.ZERO)).isPresent();
    }

    @Test
    void freePermitsAreTakenWhileTheQueueIsPassedThroughWithoutAWaitForReleases() throws Exception {
        LeasedSemaphore onA = LeasedSemaphore.of(a, "passing", 2);
        // Another instance holds the queue on its way to free slots: it waits for no release, so an acquisition that
        // finds a free slot takes it rather than lining up behind (no convoy through the queue).
        LeasedSemaphore onB = LeasedSemaphore.of(b, "passing", 2);
        try (LockHandle queued =
                onB.lock(onB.queueKey()).tryAcquireDetached(Duration.ZERO).orElseThrow()) {
            try (Permits permit = onA.tryAcquire(1, Duration.ZERO).orElseThrow()) {
                assertThat(permit.isValid()).isTrue();
            }
        }
    }

    @Test
    void aWaitingAcquisitionRidesOutAFailedFirstTryOfTheQueue() throws Exception {
        // The queue's first, zero-wait try fails on a passing backend failure (a slow answer, say); an acquisition
        // with time left must go on to its waiting take, not fail (contract 8).
        AtomicInteger failures = new AtomicInteger();
        LeasedSemaphore semaphore = LeasedSemaphore.of(failingFirstQueueTry(a, failures), "flaky", 2);
        try (Permits permits = semaphore.tryAcquire(1, LONG).orElseThrow()) {
            assertThat(permits.isValid()).isTrue();
        }
        assertThat(failures).as("the first try of the queue failed").hasValue(1);
        assertThatThrownBy(() -> LeasedSemaphore.of(failingFirstQueueTry(a, new AtomicInteger()), "flaky", 2)
                        .tryAcquire(1, Duration.ZERO))
                .as("a zero wait has no time to ride anything out")
                .isInstanceOf(LockBackendException.class);
    }

    /**
     * {@code registry}, whose queue locks fail their first zero-wait asynchronous acquisition. It can neither read
     * holders nor take a slot on the condition that another key is free, so that every acquisition takes the queue.
     */
    private static LockRegistry failingFirstQueueTry(LockRegistry registry, AtomicInteger failures) {
        AtomicBoolean failed = new AtomicBoolean();
        return (LockRegistry) Proxy.newProxyInstance(
                LockRegistry.class.getClassLoader(), new Class<?>[] {LockRegistry.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("holderOf")) {
                        throw new UnsupportedOperationException("no holders here");
                    }
                    Object result = invoke(method, registry, args);
                    return method.getName().equals("semaphoreLock")
                            ? failingLock((FencedLock) result, failed, failures)
                            : result;
                });
    }

    private static FencedLock failingLock(FencedLock lock, AtomicBoolean failed, AtomicInteger failures) {
        return (FencedLock) Proxy.newProxyInstance(
                FencedLock.class.getClassLoader(), new Class<?>[] {FencedLock.class}, (proxy, method, args) -> {
                    if (method.getName().equals("tryAcquireUnlessHeld")) {
                        throw new UnsupportedOperationException("no guarded takes here");
                    }
                    if (method.getName().equals("acquireAsync")
                            && lock.key().endsWith(":permit:queue")
                            && Duration.ZERO.equals(args[0])
                            && failed.compareAndSet(false, true)) {
                        failures.incrementAndGet();
                        return CompletableFuture.failedFuture(
                                new LockBackendException("memory", "test", lock.key(), "no answer in time"));
                    }
                    Object result = invoke(method, lock, args);
                    return method.getName().equals("withNote")
                            ? failingLock((FencedLock) result, failed, failures)
                            : result;
                });
    }

    /** {@code registry}, recording the key of every call of a method whose name starts with {@code method}. */
    private static LockRegistry recording(LockRegistry registry, String method, List<String> keys) {
        return (LockRegistry) Proxy.newProxyInstance(
                LockRegistry.class.getClassLoader(), new Class<?>[] {LockRegistry.class}, (proxy, called, args) -> {
                    if (called.getName().startsWith(method)) {
                        keys.add((String) args[0]);
                    }
                    return invoke(called, registry, args);
                });
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
