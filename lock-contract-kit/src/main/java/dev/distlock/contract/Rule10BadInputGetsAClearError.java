package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Contract rule 10, bad input gets a clear error. Keys are data, never code, and cannot escape the key prefix. */
abstract class Rule10BadInputGetsAClearError extends LockGroup {

    Rule10BadInputGetsAClearError(LockRegistryContract contract) {
        super(contract);
    }

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
        // The zero-wait call below is about prefixes, not a fresh registry's first connection. Connect first.
        moreOrders.obtain(key()).tryAcquire(timingSlack()).ifPresent(LockHandle::close);
        try (LockHandle held = orders.obtain(key).acquire()) {
            assertThat(held.key()).isEqualTo(key);
            Optional<LockHandle> other = billing.obtain(key).tryAcquire(timingSlack());
            assertThat(other).isPresent();
            other.get().close();
            assertThat(tryNow(moreOrders, key)).isEmpty();
        }
    }
}
