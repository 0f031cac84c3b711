package dev.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

class IntegrationLockRegistryTest {

    private final MemoryLockStore store = new MemoryLockStore();
    private final MemoryLockRegistry ours = MemoryLockRegistry.builder()
            .store(store)
            .leaseTime(Duration.ofSeconds(1))
            .build();
    private final MemoryLockRegistry theirs =
            MemoryLockRegistry.builder().store(store).build();
    private final IntegrationLockRegistry registry = new IntegrationLockRegistry(ours);
    private final IntegrationLockRegistry other = new IntegrationLockRegistry(theirs);

    @AfterEach
    void close() {
        ours.close();
        theirs.close();
    }

    @Test
    void lockExcludesAnotherInstanceUntilUnlocked() throws Exception {
        Lock lock = registry.obtain("orders");
        lock.lock();
        assertThat(other.obtain("orders").tryLock()).isFalse();
        assertThat(registry.currentToken("orders")).isPresent();

        lock.unlock();

        Lock theirs = other.obtain("orders");
        assertThat(theirs.tryLock(1, TimeUnit.SECONDS)).isTrue();
        theirs.unlock();
    }

    @Test
    void reentrantLockIsFreedByTheLastUnlock() throws Exception {
        Lock lock = registry.obtain("orders");
        lock.lock();
        assertThat(registry.obtain("orders").tryLock()).isTrue();

        lock.unlock();
        assertThat(other.obtain("orders").tryLock()).isFalse();
        lock.unlock();
        assertThat(other.obtain("orders").tryLock()).isTrue();
    }

    @Test
    void unlockWithoutHoldingNamesTheKey() {
        assertThatThrownBy(() -> registry.obtain("orders").unlock())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("orders");
    }

    @Test
    void renewingAFixedLeaseKeepsItPastItsFirstEnd() throws Exception {
        DistributedLock lock = registry.obtain("orders");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();

        registry.renewLock("orders", Duration.ofSeconds(30));
        Thread.sleep(600);

        assertThat(other.obtain("orders").tryLock())
                .as("still held after the first lease")
                .isFalse();
        lock.unlock();
    }

    @Test
    void fixedLeaseEndsWithoutRenewal() throws Exception {
        DistributedLock lock = registry.obtain("orders");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();

        Thread.sleep(600);

        assertThat(other.obtain("orders").tryLock())
                .as("free once the lease ran out")
                .isTrue();
        assertThatThrownBy(() -> registry.renewLock("orders"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost its lease");
        lock.unlock(); // no exception after a lost lease
    }

    @Test
    void renewingALeaseTheWatchdogKeepsChecksThatItIsStillHeld() {
        Lock lock = registry.obtain("orders");
        lock.lock();

        registry.renewLock("orders");
        registry.renewLock("orders", Duration.ofSeconds(5));
        store.expire("orders");

        assertThatThrownBy(() -> {
                    for (int i = 0; i < 500; i++) { // until the watchdog's next renewal finds the key gone
                        registry.renewLock("orders");
                        Thread.sleep(20);
                    }
                })
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost its lease");
        lock.unlock();
    }

    @Test
    void renewingWhatTheThreadDoesNotHoldIsRefused() {
        assertThatThrownBy(() -> registry.renewLock("orders"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'orders'")
                .hasMessageContaining("not held");
    }

    @Test
    void keysAreStrings() {
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
    }
}
