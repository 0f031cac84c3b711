package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Read/write locks (contract rule 13) under rule 8, waits end on time: at the wait time, on interrupt, on close. */
abstract class ReadWriteRule08WaitsEndOnTime extends ReadWriteGroup {

    ReadWriteRule08WaitsEndOnTime(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void waitsEndWithinTheirWaitTime() throws Exception {
        String key = key();
        Duration wait = Duration.ofMillis(400);
        try (LockHandle writer = write(registryA, key).acquire()) {
            assertTimedOut(read(registryB, key), wait);
            assertTimedOut(write(registryB, key), wait);
        }
        try (LockHandle reader = read(registryA, key).acquire()) {
            assertTimedOut(write(registryB, key), wait);
        }
    }

    private void assertTimedOut(FencedLock lock, Duration wait) throws InterruptedException {
        long start = System.nanoTime();
        Optional<LockHandle> result = lock.tryAcquire(wait);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(result).isEmpty();
        assertThat(took).isGreaterThanOrEqualTo(wait.minusMillis(50));
        assertThat(took).isLessThan(wait.plus(timingSlack()));
    }

    @Test
    void waitingWriterAndReaderCanBeInterruptedAndLeaveNothingBehind() throws Exception {
        String key = key();
        try (LockHandle reader = read(registryA, key).acquire()) {
            assertInterruptible(write(registryB, key));
            Optional<LockHandle> newReader = tryNow(read(registryB, key));
            assertThat(newReader)
                    .as("an interrupted writer no longer holds readers back")
                    .isPresent();
            newReader.get().close();
        }
        try (LockHandle writer = write(registryA, key).acquire()) {
            assertInterruptible(read(registryB, key));
        }
        Optional<LockHandle> after = tryNow(write(registryB, key));
        assertThat(after).isPresent();
        after.get().close();
    }

    private void assertInterruptible(FencedLock lock) throws Exception {
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Future<Throwable> waiter = inThread(() -> {
            waiterThread.set(Thread.currentThread());
            started.countDown();
            try {
                lock.acquire();
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        started.await();
        Thread.sleep(200);
        long interruptedAt = System.nanoTime();
        waiterThread.get().interrupt();
        assertThat(await(waiter)).isInstanceOf(InterruptedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).isLessThan(timingSlack());
    }

    @Test
    void closingTheRegistryEndsItsReadAndWriteWaiters() throws Exception {
        String key = key();
        LockRegistry closing = newRegistry();
        try (LockHandle writer = write(registryA, key).acquire()) {
            Future<Throwable> reader =
                    inThread(() -> failureOf(() -> read(closing, key).acquire()));
            Future<Throwable> otherWriter =
                    inThread(() -> failureOf(() -> write(closing, key).acquire()));
            Thread.sleep(200);
            closing.close();
            assertThat(await(reader)).isInstanceOf(IllegalStateException.class);
            assertThat(await(otherWriter)).isInstanceOf(IllegalStateException.class);
            assertThat(writer.isValid()).isTrue();
        }
    }
}
