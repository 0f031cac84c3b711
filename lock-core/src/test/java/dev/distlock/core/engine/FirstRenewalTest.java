package dev.distlock.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A hold's first renewal (or the end of its fixed lease) stays on the hold until the lease
 * keeper's sweep thread queues it. These tests take many holds while others come and go, so
 * that first entries are left on holds while the sweep thread looks through them, sleeps or is
 * woken, and check that none is missed: a watchdog hold that outlives several leases is never
 * lost, and a fixed lease still ends.
 */
class FirstRenewalTest {

    /**
     * Long enough that a stall of the loaded machine (which takes two thirds of it) never loses a hold; a first
     * entry that is never queued loses its hold whatever the lease.
     */
    private static final Duration LEASE = Duration.ofMillis(900);

    private static final int ROUNDS = 3;

    @Test
    void everyWatchdogHoldIsRenewedWhileShortHoldsComeAndGo() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        try (LockRegistry registry = MemoryLockRegistry.builder()
                .store(store)
                .options(RegistryOptions.defaults().withLeaseTime(LEASE))
                .build()) {
            AtomicInteger lost = new AtomicInteger();
            AtomicInteger kept = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        for (int round = 0; round < ROUNDS; round++) {
                            // Short holds that end before their first renewal is due...
                            for (int i = 0; i < 2_000; i++) {
                                registry.obtain("short-" + thread + "-" + (i % 16))
                                        .acquire()
                                        .close();
                            }
                            // ...and one that must be renewed several times.
                            try (LockHandle held =
                                    registry.obtain("long-" + thread).acquire()) {
                                held.onLost(lost::incrementAndGet);
                                Thread.sleep(LEASE.multipliedBy(3).toMillis() + round * 7L);
                                if (held.isValid()) {
                                    kept.incrementAndGet();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                worker.start();
                threads.add(worker);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(failures).isEmpty();
            assertThat(lost.get())
                    .as("watchdog holds lost for want of a renewal")
                    .isZero();
            assertThat(kept.get()).isEqualTo(4 * ROUNDS);
        }
    }

    @Test
    void aFixedLeaseTakenWhileTheSweepThreadSleepsStillEnds() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        try (LockRegistry registry = MemoryLockRegistry.builder()
                .store(store)
                .options(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(30)))
                .build()) {
            // A watchdog hold whose renewal is far off: the sweep thread sleeps its longest.
            try (LockHandle far = registry.obtain("far").acquire()) {
                Thread.sleep(50);
                LockHandle fixed = registry.obtain("fixed")
                        .tryAcquire(Duration.ZERO, Duration.ofMillis(100))
                        .orElseThrow();
                AtomicInteger lost = new AtomicInteger();
                fixed.onLost(lost::incrementAndGet);
                long deadline = System.nanoTime() + Duration.ofMillis(900).toNanos();
                while (fixed.isValid() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                Thread.sleep(50);
                assertThat(lost.get())
                        .as("the end of the fixed lease ran before the sweep thread's own wake-up a second later")
                        .isEqualTo(1);
                fixed.close();
                assertThat(far.isValid()).isTrue();
            }
        }
    }
}
