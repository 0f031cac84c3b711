package dev.distlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Read/write locks (contract rule 13) under rule 8, waits end on time. At the wait time, on interrupt, on close. */
abstract class ReadWriteRule08WaitsEndOnTime extends ReadWriteGroup {

    ReadWriteRule08WaitsEndOnTime(ReadWriteLockContract contract) {
        super(contract);
    }

    @Test
    void waitsEndWithinTheirWaitTime(TestInfo test) throws Exception {
        String key = key();
        Duration wait = Duration.ofMillis(400);
        try (LockHandle writer = write(registryA, key).acquire()) {
            assertTimedOut(test, read(registryB, key), wait);
            assertTimedOut(test, write(registryB, key), wait);
        }
        try (LockHandle reader = read(registryA, key).acquire()) {
            assertTimedOut(test, write(registryB, key), wait);
        }
    }

    private void assertTimedOut(TestInfo test, FencedLock lock, Duration wait) throws Exception {
        WaitBounds.check(this, test, () -> {
            long start = System.nanoTime();
            Optional<LockHandle> result = lock.tryAcquire(wait);
            Timed timed = Timed.since(start, wait.plus(timingSlack()));
            assertThat(result).isEmpty();
            assertThat(timed.took()).isGreaterThanOrEqualTo(wait.minusMillis(50));
            return timed;
        });
    }

    @Test
    void waitingWriterAndReaderCanBeInterruptedAndLeaveNothingBehind(TestInfo test) throws Exception {
        String key = key();
        try (LockHandle reader = read(registryA, key).acquire()) {
            WaitBounds.check(this, test, () -> interrupted(write(registryB, key)));
            Optional<LockHandle> newReader = tryNow(read(registryB, key));
            assertThat(newReader)
                    .as("an interrupted writer no longer holds readers back")
                    .isPresent();
            newReader.get().close();
        }
        try (LockHandle writer = write(registryA, key).acquire()) {
            WaitBounds.check(this, test, () -> interrupted(read(registryB, key)));
        }
        Optional<LockHandle> after = tryNow(write(registryB, key));
        assertThat(after).isPresent();
        after.get().close();
    }

    /** Interrupts a thread waiting for {@code lock} and returns how long the wait took to end. */
    private Timed interrupted(FencedLock lock) throws Exception {
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
        Throwable ended = await(waiter);
        Timed timed = Timed.since(interruptedAt, timingSlack());
        assertThat(ended).isInstanceOf(InterruptedException.class);
        return timed;
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
