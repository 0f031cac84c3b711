package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Contract rule 3, owner-only release. Only the owner releases, once. A release after a loss, after the registry
 * closed or on an interrupted thread never frees another owner's lock.
 */
abstract class Rule03OwnerOnlyRelease extends LockGroup {

    Rule03OwnerOnlyRelease(LockRegistryContract contract) {
        super(contract);
    }

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
    void handleIsInvalidOnceReleased() throws Exception {
        LockHandle handle = registryA.obtain(key()).acquire();
        assertThat(handle.isValid()).isTrue();
        handle.close();
        assertThat(handle.isValid()).isFalse();
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
}
