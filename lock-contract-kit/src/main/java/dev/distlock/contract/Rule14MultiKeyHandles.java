package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.core.multi.MultiLockHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Contract rule 14, multi-key locks, their handles. One handle per set releases every key, a token per key,
 * reentrancy per key for thread-owned sets, the loss of any key loses the whole hold, asynchronous sets belong to their
 * handle, a cancelled set leaves nothing held, and bad input fails clearly.
 */
abstract class Rule14MultiKeyHandles extends LockGroup {

    /** Far more than the workload needs. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);

    Rule14MultiKeyHandles(LockRegistryContract contract) {
        super(contract);
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
}
