package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Contract rule 4, leases. A lost hold frees the key for everyone, runs {@code onLost} once, and acquiring again after a loss. */
abstract class Rule04LeasesLost extends LockGroup {

    Rule04LeasesLost(LockRegistryContract contract) {
        super(contract);
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
}
