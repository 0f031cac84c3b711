package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 1, mutual exclusion. Readers share a key, a writer holds it alone. */
abstract class ReadWriteRule01MutualExclusion extends ReadWriteGroup {

    ReadWriteRule01MutualExclusion(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void readersOfOneAndOfTwoRegistriesHoldTheKeyAtOnce() throws Exception {
        String key = key();
        int readers = 4;
        ReadWriteOverlapDetector detector = new ReadWriteOverlapDetector(300);
        CountDownLatch allIn = new CountDownLatch(readers);
        List<Future<Boolean>> workers = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            LockRegistry registry = i % 2 == 0 ? registryA : registryB;
            workers.add(inThread(() -> {
                try (LockHandle handle =
                        read(registry, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                    allIn.countDown();
                    detector.read();
                    return allIn.await(10, TimeUnit.SECONDS);
                }
            }));
        }
        for (Future<Boolean> worker : workers) {
            assertThat(await(worker)).as("every reader saw all readers inside").isTrue();
        }
        assertThat(detector.maxConcurrentReaders()).isGreaterThan(1);
    }

    @Test
    void writerNeverSharesTheKeyWithReadersOrWriters() throws Exception {
        String key = key();
        ReadWriteOverlapDetector detector = new ReadWriteOverlapDetector(3);
        runMixedWorkload(detector, true, key);
        assertThat(detector.writes()).isEqualTo(2 * 2 * 6);
        assertThat(detector.writerOverlapSeen()).isFalse();
        assertThat(detector.maxConcurrentReaders())
                .as("readers still share between writes")
                .isGreaterThan(1);
    }

    @Test
    void overlapDetectorCatchesWritersWithoutTheLock() throws Exception {
        // Control run. The same workload as above with the locks bypassed.
        ReadWriteOverlapDetector detector = new ReadWriteOverlapDetector(3);
        runMixedWorkload(detector, false, key());
        assertThat(detector.writerOverlapSeen()).isTrue();
    }

    private void runMixedWorkload(ReadWriteOverlapDetector detector, boolean locked, String key) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> workers = new ArrayList<>();
        for (LockRegistry registry : List.of(registryA, registryB)) {
            for (int t = 0; t < 4; t++) {
                boolean writer = t < 2;
                workers.add(inThread(() -> {
                    FencedReadWriteLock lock = registry.readWriteLock(key);
                    start.await();
                    for (int i = 0; i < 6; i++) {
                        FencedLock side = writer ? lock.writeLock() : lock.readLock();
                        Optional<LockHandle> handle = locked ? side.tryAcquire(LONG_WAIT) : Optional.empty();
                        try {
                            if (writer) {
                                detector.write();
                            } else {
                                detector.read();
                                detector.read();
                            }
                        } finally {
                            handle.ifPresent(LockHandle::close);
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
    }

    @Test
    void writerExcludesReadersAndWritersOfBothRegistries() throws Exception {
        String key = key();
        try (LockHandle held = tryNow(write(registryA, key)).orElseThrow()) {
            assertThat(tryNow(read(registryB, key))).isEmpty();
            assertThat(tryNow(write(registryB, key))).isEmpty();
            assertThat(await(inThread(() -> tryNow(read(registryA, key))))).isEmpty();
            assertThat(await(inThread(() -> tryNow(write(registryA, key))))).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
        try (LockHandle reader = tryNow(read(registryB, key)).orElseThrow()) {
            assertThat(tryNow(write(registryA, key))).isEmpty();
            assertThat(reader.isValid()).isTrue();
        }
    }

    @Test
    void plainLockAndReadWriteLockOfOneKeyAreIndependent() throws Exception {
        String key = key();
        try (LockHandle plain = registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
                LockHandle write = tryNow(write(registryB, key)).orElseThrow()) {
            assertThat(plain.isValid()).isTrue();
            assertThat(write.isValid()).isTrue();
        }
    }
}
