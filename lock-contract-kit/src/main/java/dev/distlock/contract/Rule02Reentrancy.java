package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Contract rule 2, reentrancy. The owning thread acquires again, and only its last release frees the key. */
abstract class Rule02Reentrancy extends LockGroup {

    Rule02Reentrancy(LockRegistryContract contract) {
        super(contract);
    }

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
}
