package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Contract rule 4, leases. Minimum holds ({@code LockHandle.holdAtLeast}) keep the key after an early release. */
abstract class Rule04LeasesMinimumHolds extends LockGroup {

    Rule04LeasesMinimumHolds(LockRegistryContract contract) {
        super(contract);
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
        closing.close(); // a rolling restart. The instance goes while the minimum still runs
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
}
