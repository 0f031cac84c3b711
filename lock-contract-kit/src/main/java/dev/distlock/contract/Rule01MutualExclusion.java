package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Contract rule 1, mutual exclusion. At most one owner holds a key at a time, across threads and registries. */
abstract class Rule01MutualExclusion extends LockGroup {

    Rule01MutualExclusion(LockRegistryContract contract) {
        super(contract);
    }

    @Test
    void secondRegistryCannotAcquireWhileFirstHolds() throws Exception {
        String key = key();
        try (LockHandle held = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(tryNow(registryB, key)).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void releaseFreesKeyForAnotherRegistry() throws Exception {
        String key = key();
        registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow().close();
        Optional<LockHandle> second = tryNow(registryB, key);
        assertThat(second).isPresent();
        second.get().close();
    }

    @Test
    void threadsOfOneRegistryNeverOverlap() throws Exception {
        assertNoOverlap(List.of(registryA), contendersPerRegistry() * 2, 8);
    }

    @Test
    void threadsOfTwoRegistriesNeverOverlap() throws Exception {
        assertNoOverlap(List.of(registryA, registryB), contendersPerRegistry(), 8);
    }

    @Test
    void overlapDetectorCatchesUnlockedIncrements() throws Exception {
        // Control run. The same workload as the mutual-exclusion tests, with the lock bypassed.
        OverlapDetector detector = new OverlapDetector(5);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            workers.add(inThread(() -> {
                start.await();
                for (int i = 0; i < 5; i++) {
                    detector.criticalSection();
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            await(worker);
        }
        assertThat(detector.completed()).isEqualTo(20);
        assertThat(detector.overlapSeen()).isTrue();
        assertThat(detector.count()).isLessThan(detector.completed());
    }

    private void assertNoOverlap(List<LockRegistry> owners, int threadsPerRegistry, int passes) throws Exception {
        String key = key();
        OverlapDetector detector = new OverlapDetector(2);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (LockRegistry registry : owners) {
            for (int t = 0; t < threadsPerRegistry; t++) {
                workers.add(inThread(() -> {
                    FencedLock lock = registry.obtain(key);
                    start.await();
                    for (int i = 0; i < passes; i++) {
                        try (LockHandle handle =
                                lock.tryAcquire(Duration.ofSeconds(60)).orElseThrow()) {
                            detector.criticalSection();
                        }
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (Future<Void> worker : workers) {
            await(worker);
        }
        int expected = owners.size() * threadsPerRegistry * passes;
        assertThat(detector.completed()).isEqualTo(expected);
        assertThat(detector.count())
                .as("lost updates mean two owners overlapped")
                .isEqualTo(expected);
        assertThat(detector.maxActive()).isEqualTo(1);
    }

    @Test
    void executeLockedRunsTheTaskUnderTheLock() throws Exception {
        String key = key();
        String result = registryA.executeLocked(key, Duration.ofSeconds(5), handle -> {
            assertThat(handle.isValid()).isTrue();
            assertThat(tryNow(registryB, key)).isEmpty();
            return "done:" + handle.key();
        });
        assertThat(result).isEqualTo("done:" + key);
        Optional<LockHandle> after = tryNow(registryB, key);
        assertThat(after).isPresent();
        after.get().close();
    }

    @Test
    void distinctKeysAreIndependent() throws Exception {
        String first = key("first");
        String second = key("second");
        try (LockHandle a = registryA.obtain(first).acquire();
                LockHandle b =
                        registryB.obtain(second).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(a.isValid()).isTrue();
            assertThat(b.isValid()).isTrue();
        }
    }
}
