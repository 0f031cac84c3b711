package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;

/** Base of the groups of {@link LockRegistryContract}. Plain (exclusive) locks. */
abstract class LockGroup extends ContractGroup<LockRegistryContract> {

    LockGroup(LockRegistryContract contract) {
        super(contract);
    }

    final int contendersPerRegistry() {
        return contract().contendersPerRegistry();
    }

    final boolean guardsTakes(String key, String guardKey) {
        return contract().guardsTakes(key, guardKey);
    }

    static Optional<LockHandle> tryNow(LockRegistry registry, String key) throws InterruptedException {
        return registry.obtain(key).tryAcquire(Duration.ZERO);
    }

    /** Waits (at most twice the lease and slack) until {@code handle} is no longer valid. */
    final void awaitInvalid(LockHandle handle) throws InterruptedException {
        long deadline = System.nanoTime()
                + leaseTime().plus(timingSlack()).multipliedBy(2).toNanos();
        while (handle.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).as("the lease ended").isFalse();
    }
}
