package dev.distlock.core.multi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link MultiLock}'s edges over the in-memory backend: failures part-way, releases that fail, losses, races. */
@Timeout(60)
class MultiLockTest {

    private static final Duration LONG = Duration.ofSeconds(10);

    private final MemoryLockStore store = new MemoryLockStore();
    private final List<LockRegistry> registries = new ArrayList<>();
    private final MemoryLockRegistry registry = memory();
    private final MemoryLockRegistry other = memory();
    private final FaultyRegistry faulty = new FaultyRegistry(memory());

    @AfterEach
    void closeRegistries() {
        registries.forEach(LockRegistry::close);
    }

    private MemoryLockRegistry memory() {
        MemoryLockRegistry created = MemoryLockRegistry.builder().store(store).build();
        registries.add(created);
        return created;
    }

    /** True when another registry can take each of {@code keys}. */
    private boolean free(String... keys) throws InterruptedException {
        for (String key : keys) {
            Optional<LockHandle> handle = other.obtain(key).tryAcquire(Duration.ofSeconds(2));
            if (handle.isEmpty()) {
                return false;
            }
            handle.get().close();
        }
        return true;
    }

    /** Holds {@code key} on {@link #other} until the returned handle is closed, from any thread. */
    private LockHandle heldElsewhere(String key) throws Exception {
        return other.obtain(key)
                .acquireAsync(Duration.ZERO)
                .get(10, TimeUnit.SECONDS)
                .orElseThrow();
    }

    @Test
    void keysAreDeduplicatedAndTakenInNaturalOrder() throws Exception {
        MultiLock set = MultiLock.of(registry, "b", "a", "c", "a");
        assertThat(set.keys()).containsExactly("a", "b", "c");
        try (MultiLockHandle held = set.tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(held.keys()).containsExactly("a", "b", "c");
            assertThat(held.tokens().keySet()).containsExactly("a", "b", "c");
        }
    }

    @Test
    void waitForGivesTheFirstKeyTheWholeWaitAndTheOthersWhatIsLeft() {
        long now = System.nanoTime();
        Duration wait = Duration.ofSeconds(5);
        assertThat(MultiLock.waitFor(0, wait, now - TimeUnit.SECONDS.toNanos(60)))
                .isEqualTo(wait);
        assertThat(MultiLock.waitFor(1, wait, now)).isPositive().isLessThanOrEqualTo(wait);
        assertThat(MultiLock.waitFor(2, wait, now - TimeUnit.SECONDS.toNanos(6)))
                .as("no time left: the key is not asked for")
                .isNull();
        assertThat(MultiLock.waitFor(2, Duration.ZERO, now - TimeUnit.SECONDS.toNanos(6)))
                .as("a zero wait asks every key once")
                .isZero();
    }

    @Test
    void aFailureOnTheSecondKeyReleasesTheFirstAndPropagates() {
        faulty.failingAcquisitions.add("b");
        MultiLock set = MultiLock.of(faulty, "a", "b", "c");
        assertThatThrownBy(() -> set.tryAcquire(LONG))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("'b'");
        assertThat(faulty.handleOf("a").closed).isTrue();
        assertThat(faulty.handles).hasSize(1);
        assertThat(faulty.obtain("a").holdCount()).isZero();
    }

    @Test
    void aFailingReleaseDoesNotStopTheOthersAndTheFirstFailureCarriesTheRest() throws Exception {
        faulty.failingReleases.add("a");
        faulty.failingReleases.add("c");
        MultiLockHandle held =
                MultiLock.of(faulty, "a", "b", "c").tryAcquire(Duration.ZERO).orElseThrow();
        assertThatThrownBy(held::close)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("'c'") // released first: the keys go back in reverse order
                .satisfies(e -> assertThat(e.getSuppressed())
                        .singleElement()
                        .satisfies(s -> assertThat(s).hasMessageContaining("'a'")));
        assertThat(free("a", "b", "c")).isTrue();
        held.close(); // closing twice releases once
    }

    @Test
    void aReleaseThatFailsAfterATimeoutIsThrownInsteadOfAnEmptyResult() throws Exception {
        faulty.failingReleases.add("a");
        try (LockHandle b = heldElsewhere("b")) {
            assertThatThrownBy(() -> MultiLock.of(faulty, "a", "b").tryAcquire(Duration.ofMillis(50)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("'a'");
        }
        assertThat(free("a", "b")).isTrue();
    }

    @Test
    void anInterruptWhileWaitingReleasesWhatWasTaken() throws Exception {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        try (LockHandle b = heldElsewhere("b")) {
            Thread waiter = new Thread(() -> {
                try {
                    MultiLock.of(registry, "a", "b").tryAcquire(LONG);
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            waiter.start();
            awaitHolder("a");
            waiter.interrupt();
            waiter.join(10_000);
        }
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(free("a", "b")).isTrue();
    }

    @Test
    void executeLockedNamesTheKeyThatWasNotAcquiredAndRunsNothing() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        try (LockHandle b = heldElsewhere("b")) {
            MultiLock set = MultiLock.of(registry, "c", "b", "a");
            assertThatThrownBy(() -> set.executeLocked(Duration.ofMillis(50), held -> ran.getAndSet(true)))
                    .isInstanceOf(MultiLockNotAcquiredException.class)
                    .hasMessageContaining("[a, b, c]")
                    .hasMessageContaining("'b'")
                    .hasMessageContaining("memory")
                    .satisfies(e ->
                            assertThat(((LockNotAcquiredException) e).key()).isEqualTo("b"));
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> set.executeLocked(LONG, held -> ran.getAndSet(true)))
                        .isInstanceOf(MultiLockNotAcquiredException.class)
                        .hasCauseInstanceOf(InterruptedException.class);
                assertThat(Thread.currentThread().isInterrupted())
                        .as("the flag is set again")
                        .isTrue();
            } finally {
                Thread.interrupted();
            }
        }
        assertThat(ran).isFalse();
        List<String> locked = MultiLock.of(registry, "a", "b", "c").executeLocked(LONG, MultiLockHandle::keys);
        assertThat(locked).containsExactly("a", "b", "c");
        assertThat(free("a", "b", "c")).isTrue();
    }

    @Test
    void fixedLeasesAreExtendedTogetherAndWatchdogLeasesRefuseExtend() throws Exception {
        try (MultiLockHandle fixed = MultiLock.of(registry, "a", "b")
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow()) {
            assertThat(fixed.extend(Duration.ofSeconds(20))).isTrue();
            assertThat(registry.holds())
                    .allSatisfy(
                            hold -> assertThat(hold.leaseLeft().orElseThrow()).isGreaterThan(Duration.ofSeconds(10)));
        }
        MultiLockHandle renewed =
                MultiLock.of(registry, "a", "b").tryAcquire(Duration.ZERO).orElseThrow();
        assertThatThrownBy(() -> renewed.extend(Duration.ofSeconds(20))).isInstanceOf(IllegalStateException.class);
        renewed.close();
        assertThat(renewed.extend(Duration.ofSeconds(20))).as("released").isFalse();
    }

    @Test
    void aMinimumHoldKeepsEveryKey() throws Exception {
        MultiLockHandle held =
                MultiLock.of(registry, "a", "b").tryAcquire(Duration.ZERO).orElseThrow();
        held.holdAtLeast(Duration.ofSeconds(30));
        held.close();
        assertThat(other.obtain("a").tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(other.obtain("b").tryAcquire(Duration.ZERO)).isEmpty();
    }

    @Test
    void losingKeysRunsOnLostOnceAndNeverAfterTheRelease() throws Exception {
        MultiLockHandle held =
                MultiLock.of(faulty, "a", "b").tryAcquire(Duration.ZERO).orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger afterFailure = new AtomicInteger();
        held.onLost(() -> {
            throw new IllegalStateException("a callback that fails");
        });
        held.onLost(lost::incrementAndGet);
        held.onLost(afterFailure::incrementAndGet);
        faulty.handleOf("b").lose();
        assertThat(held.isValid()).isFalse();
        faulty.handleOf("a").lose();
        assertThat(lost).hasValue(1);
        assertThat(afterFailure)
                .as("a failing callback does not stop the others")
                .hasValue(1);
        held.close();

        MultiLockHandle released =
                MultiLock.of(faulty, "a", "b").tryAcquire(Duration.ZERO).orElseThrow();
        AtomicInteger calls = new AtomicInteger();
        released.onLost(calls::incrementAndGet);
        released.close();
        faulty.handleOf("a").lose();
        assertThat(calls).as("never after a normal release").hasValue(0);
    }

    @Test
    void anAsyncFailureOnTheSecondKeyReleasesTheFirst() throws Exception {
        faulty.failingAcquisitions.add("b");
        CompletableFuture<Optional<MultiLockHandle>> result =
                MultiLock.of(faulty, "a", "b").acquireAsync(LONG);
        assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockBackendException.class);
        assertThat(faulty.handleOf("a").closed).isTrue();
        assertThat(free("a", "b")).isTrue();
    }

    @Test
    void anAsyncSetThatRunsOutOfTimeTakesNothing() throws Exception {
        try (LockHandle b = heldElsewhere("b")) {
            assertThat(MultiLock.of(registry, "a", "b")
                            .acquireAsync(Duration.ofMillis(100))
                            .get(10, TimeUnit.SECONDS))
                    .isEmpty();
            Optional<LockHandle> a = other.obtain("a").tryAcquire(Duration.ZERO);
            assertThat(a).as("the first key was released").isPresent();
            a.get().close();
        }
    }

    @Test
    void cancellingAnAsyncSetAtAnyPointOfItsChainLeavesNothingHeld() throws Exception {
        // The cancellation lands before, while and after the second key is handed over.
        for (int round = 0; round < 40; round++) {
            String a = "a" + round;
            String b = "b" + round;
            LockHandle heldB = heldElsewhere(b);
            CompletableFuture<Optional<MultiLockHandle>> pending =
                    MultiLock.of(registry, a, b).acquireAsync(LONG);
            if (round % 2 == 0) {
                awaitHolder(a);
            }
            heldB.close();
            long spinUntil = System.nanoTime() + (round % 10) * 100_000L;
            while (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            if (!pending.cancel(true)) {
                pending.get().ifPresent(MultiLockHandle::close); // complete before the cancellation: ours to close
            }
            assertThat(free(a, b))
                    .as("round %d: the cancelled set left nothing held", round)
                    .isTrue();
        }
    }

    private void awaitHolder(String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (other.holderOf(key).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(other.holderOf(key)).as("%s is taken", key).isPresent();
    }
}
