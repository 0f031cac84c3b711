package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 6, waiting without spinning. Writer preference, and waking on release. */
abstract class ReadWriteRule06WaitingWithoutSpinning extends ReadWriteGroup {

    ReadWriteRule06WaitingWithoutSpinning(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void waitingWriterMakesNewReadersQueueBehindIt() throws Exception {
        String key = key();
        LockHandle firstReader = tryNow(read(registryA, key)).orElseThrow();
        Future<FencingToken> writer = inThread(() -> {
            try (LockHandle handle = write(registryB, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                return handle.token();
            }
        });
        awaitWriterQueued(key);
        assertThat(read(registryB, key).tryAcquire(Duration.ofMillis(200)))
                .as("a new reader waits behind the waiting writer")
                .isEmpty();
        assertThat(writer.isDone()).isFalse();
        firstReader.close();
        assertThat(await(writer)).isNotNull();
        try (LockHandle later = read(registryB, key).tryAcquire(LONG_WAIT).orElseThrow()) {
            assertThat(later.isValid()).isTrue();
        }
    }

    @Test
    void newReadersGetInDuringTheWritersGraceAndQueueBehindItOnceItEnds() throws Exception {
        String key = key();
        Duration grace = Duration.ofSeconds(3);
        LockRegistry patient = newRegistry(RegistryOptions.defaults().withWriterGrace(grace));
        LockHandle firstReader = tryNow(read(registryA, key)).orElseThrow();
        long writerStartsBy = System.nanoTime();
        Future<FencingToken> writer = inThread(() -> {
            try (LockHandle handle = write(patient, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                return handle.token();
            }
        });
        Thread.sleep(200);
        Optional<LockHandle> duringGrace = tryNow(read(registryB, key));
        assertThat(Duration.ofNanos(System.nanoTime() - writerStartsBy))
                .as("the reader came within the writer's grace")
                .isLessThan(grace);
        assertThat(duringGrace)
                .as("a new reader gets in while the writer is in its grace")
                .isPresent();
        duringGrace.get().close();
        assertThat(writer.isDone()).isFalse();
        awaitWriterQueued(key);
        assertThat(Duration.ofNanos(System.nanoTime() - writerStartsBy))
                .as("new readers queue behind the writer only once its grace has ended")
                .isGreaterThanOrEqualTo(grace);
        assertThat(writer.isDone()).isFalse();
        firstReader.close();
        assertThat(await(writer)).isNotNull();
    }

    @Test
    void writerInItsGraceGetsTheKeyWhenTheReadersLeaveNotWhenTheGraceEnds() throws Exception {
        String key = key();
        LockRegistry patient = newRegistry(RegistryOptions.defaults().withWriterGrace(LONG_WAIT));
        LockHandle reader = tryNow(read(registryA, key)).orElseThrow();
        Future<Long> writer = inThread(() -> {
            try (LockHandle handle = write(patient, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                return System.nanoTime();
            }
        });
        Thread.sleep(200);
        assertThat(writer.isDone()).as("the reader still holds the key").isFalse();
        long releasedAt = System.nanoTime();
        reader.close();
        assertThat(Duration.ofNanos(await(writer) - releasedAt))
                .as("a writer in its grace takes the key when it comes free")
                .isLessThan(timingSlack().multipliedBy(2));
    }

    @Test
    void readersGoOnWhenTheWaitingWriterGivesUp() throws Exception {
        String key = key();
        try (LockHandle reader = tryNow(read(registryA, key)).orElseThrow()) {
            assertThat(write(registryB, key).tryAcquire(Duration.ofMillis(300))).isEmpty();
            try (LockHandle another = tryNow(read(registryB, key)).orElseThrow()) {
                assertThat(another.isValid()).isTrue();
            }
            assertThat(reader.isValid()).isTrue();
        }
    }

    @Test
    void writerIsNotStarvedByEightLoopingReaders() throws Exception {
        String key = key();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger activeReaders = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        List<Future<Void>> readers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            LockRegistry registry = i % 2 == 0 ? registryA : registryB;
            int offset = i * 5;
            readers.add(inThread(() -> {
                Thread.sleep(offset);
                FencedLock lock = read(registry, key);
                while (!stop.get()) {
                    try (LockHandle handle = lock.tryAcquire(LONG_WAIT).orElseThrow()) {
                        activeReaders.incrementAndGet();
                        reads.incrementAndGet();
                        Thread.sleep(40);
                        activeReaders.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            while (reads.get() < 16) {
                Thread.sleep(10);
            }
            assertThat(activeReaders.get())
                    .as("readers hold the key when the writer asks")
                    .isPositive();
            Optional<LockHandle> writer = write(registryA, key).tryAcquire(writerStarvationBound());
            assertThat(writer).as("writer got in past 8 looping readers").isPresent();
            assertThat(activeReaders.get()).isZero();
            writer.get().close();
        } finally {
            stop.set(true);
        }
        for (Future<Void> reader : readers) {
            await(reader);
        }
    }

    @Test
    void writerIsWokenWhenTheLastReaderReleasesNotAtItsLeaseEnd() throws Exception {
        String key = key();
        LockRegistry longLeases = newRegistry(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(60)));
        LockHandle first = tryNow(read(longLeases, key)).orElseThrow();
        LockHandle second = await(inThread(() -> tryNow(read(longLeases, key)).orElseThrow()));
        Future<Long> writer = inThread(() -> {
            try (LockHandle handle = write(registryB, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                return System.nanoTime();
            }
        });
        awaitWriterQueued(key);
        first.close();
        Thread.sleep(200);
        assertThat(writer.isDone()).as("one reader still holds the key").isFalse();
        long releasedAt = System.nanoTime();
        await(inThread(() -> {
            second.close();
            return null;
        }));
        assertThat(Duration.ofNanos(await(writer) - releasedAt))
                .isLessThan(timingSlack().multipliedBy(2));
    }

    @Test
    void readerIsWokenWhenTheWriterReleases() throws Exception {
        String key = key();
        LockRegistry longLeases = newRegistry(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(60)));
        LockHandle writer = tryNow(write(longLeases, key)).orElseThrow();
        Future<Long> reader = inThread(() -> {
            try (LockHandle handle = read(registryB, key).tryAcquire(LONG_WAIT).orElseThrow()) {
                return System.nanoTime();
            }
        });
        Thread.sleep(200);
        assertThat(reader.isDone()).isFalse();
        long releasedAt = System.nanoTime();
        writer.close();
        assertThat(Duration.ofNanos(await(reader) - releasedAt))
                .isLessThan(timingSlack().multipliedBy(2));
    }
}
