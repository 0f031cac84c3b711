package dev.distlock.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The read/write lock contract ({@code docs/read-write-locks.md}) every backend keeps. A backend's
 * test class extends this and supplies registries over one shared server; each registry stands
 * for another JVM. Backends override the timing hooks only, never an assertion.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class ReadWriteLockContract {

    private static final Duration LONG_WAIT = Duration.ofSeconds(30);

    private final List<LockRegistry> registries = new ArrayList<>();
    private ExecutorService threads;
    private String testName;

    protected LockRegistry registryA;
    protected LockRegistry registryB;

    /** A new registry over the server under test, built with {@code options}; the kit closes it. */
    protected abstract LockRegistry createRegistry(RegistryOptions options);

    /**
     * The short lease of the tests about expiry and loss: their fixed leases, and the watchdog lease of
     * {@link #shortLeaseRegistry()}. Override where the backend has a coarser minimum.
     */
    protected Duration leaseTime() {
        return Duration.ofMillis(1000);
    }

    /**
     * The watchdog lease of {@link #registryA}, {@link #registryB} and {@link #newRegistry()}: long
     * enough that a renewal delayed by a loaded machine never loses a hold in a test about something else.
     */
    protected Duration holdLeaseTime() {
        return Duration.ofSeconds(10);
    }

    /** How late a wake-up or a timed-out wait may return, given the backend's round trips. */
    protected Duration timingSlack() {
        return Duration.ofMillis(750);
    }

    /** How long a writer may take to get in past 8 looping readers. */
    protected Duration writerStarvationBound() {
        return Duration.ofSeconds(10);
    }

    @BeforeEach
    void openRegistries(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        threads = Executors.newCachedThreadPool();
        registryA = newRegistry();
        registryB = newRegistry();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        for (LockRegistry registry : registries) {
            registry.close();
        }
        registries.clear();
    }

    protected final LockRegistry newRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(holdLeaseTime()));
    }

    /** A registry whose watchdog lease is {@link #leaseTime()}, for the tests about expiry, renewal and loss. */
    protected final LockRegistry shortLeaseRegistry() {
        return newRegistry(RegistryOptions.defaults().withLeaseTime(leaseTime()));
    }

    protected final LockRegistry newRegistry(RegistryOptions options) {
        LockRegistry registry = createRegistry(options);
        registries.add(registry);
        return registry;
    }

    protected final String key() {
        return "rw-" + testName + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    protected final <T> Future<T> inThread(Callable<T> task) {
        return threads.submit(task);
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    private static FencedLock read(LockRegistry registry, String key) {
        return registry.readWriteLock(key).readLock();
    }

    private static FencedLock write(LockRegistry registry, String key) {
        return registry.readWriteLock(key).writeLock();
    }

    private static Optional<LockHandle> tryNow(FencedLock lock) throws InterruptedException {
        return lock.tryAcquire(Duration.ZERO);
    }

    // --- Sharing and exclusion (contract 1) ----------------------------------------------

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
        // Control run: the same workload as above with the locks bypassed.
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

    // --- Writer preference and waking ----------------------------------------------------

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

    /** Waits until a new reader of another registry is refused, i.e. the writer is queued on the server. */
    private void awaitWriterQueued(String key) throws Exception {
        LockRegistry probe = newRegistry();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - until < 0) {
            Optional<LockHandle> reader = tryNow(read(probe, key));
            if (reader.isEmpty()) {
                return;
            }
            reader.get().close();
            Thread.sleep(20);
        }
        throw new AssertionError("the waiting writer never made new readers wait");
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

    // --- Crashed holders (contract 4) ----------------------------------------------------

    @Test
    void readerWhoseLeaseRanOutDoesNotBlockWriters() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        // A reader that never releases: its process died, so only the lease ends it.
        LockHandle crashed =
                read(expiring, key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Optional<LockHandle> writer =
                write(registryB, key).tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        assertThat(writer).isPresent();
        assertThat(crashed.isValid()).isFalse();
        writer.get().close();
    }

    @Test
    void writerWhoseLeaseRanOutDoesNotBlockReaders() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        write(expiring, key).tryAcquire(Duration.ZERO, leaseTime()).orElseThrow();
        Optional<LockHandle> reader =
                read(registryB, key).tryAcquire(leaseTime().plus(timingSlack()).multipliedBy(3));
        assertThat(reader).isPresent();
        reader.get().close();
    }

    @Test
    void closingAReadersRegistryFreesTheWriter() throws Exception {
        String key = key();
        LockRegistry doomed = newRegistry(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(60)));
        tryNow(read(doomed, key)).orElseThrow();
        Future<Optional<LockHandle>> writer =
                inThread(() -> write(registryB, key).tryAcquire(LONG_WAIT));
        Thread.sleep(200);
        assertThat(writer.isDone()).isFalse();
        doomed.close();
        Optional<LockHandle> granted = await(writer);
        assertThat(granted).isPresent();
        granted.get().close();
    }

    // --- Reentrancy (contract 2), downgrade, upgrade -------------------------------------

    @Test
    void eachSideIsReentrant() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle outer = lock.writeLock().acquire();
                LockHandle inner = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lock.writeLock().holdCount()).isEqualTo(2);
            assertThat(inner.token()).isEqualTo(outer.token());
        }
        try (LockHandle outer = lock.readLock().acquire();
                LockHandle inner = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(lock.readLock().holdCount()).isEqualTo(2);
            assertThat(lock.writeLock().holdCount()).isZero();
        }
        Optional<LockHandle> other = tryNow(write(registryB, key));
        assertThat(other).as("all holds released").isPresent();
        other.get().close();
    }

    @Test
    void writerTakesTheReadLockAndKeepsItAfterReleasingTheWriteLock() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        LockHandle write = lock.writeLock().acquire();
        // Another registry's writer waits meanwhile: the downgrade must not queue behind it.
        Future<Optional<LockHandle>> otherWriter =
                inThread(() -> write(registryB, key).tryAcquire(LONG_WAIT));
        Thread.sleep(200);
        LockHandle read = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow();
        assertThat(read.token().compareTo(write.token())).isGreaterThanOrEqualTo(0);
        write.close();
        assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
        Thread.sleep(200);
        assertThat(otherWriter.isDone())
                .as("the downgraded reader still excludes writers")
                .isFalse();
        read.close();
        Optional<LockHandle> next = await(otherWriter);
        assertThat(next).isPresent();
        assertThat(next.get().token().isNewerThan(read.token())).isTrue();
        next.get().close();
    }

    @Test
    void downgradedReaderWhoseWriteHoldRanOutIsRefusedTheWriteLockAtOnce() throws Exception {
        LockRegistry expiring = shortLeaseRegistry();
        String key = key();
        FencedReadWriteLock lock = expiring.readWriteLock(key);
        // The acquisitions that must succeed wait as long as they need: each is a round trip, and a
        // zero wait gives it only the contract's 250 ms overrun, which a loaded machine can exceed.
        // A fixed lease, never renewed: the write hold runs out while the thread keeps reading.
        LockHandle write = lock.writeLock().tryAcquire(LONG_WAIT, leaseTime()).orElseThrow();
        LockHandle read = lock.readLock().tryAcquire(LONG_WAIT).orElseThrow();
        Thread.sleep(leaseTime().plus(timingSlack()).toMillis());
        assertThat(write.isValid()).isFalse();
        assertThat(read.isValid()).isTrue();
        // Its only live hold is the read: a new write hold would wait for it, its own, until the wait
        // ends. Refused at once, as an upgrade is: before waiting, so long before the wait could end.
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.writeLock().tryAcquire(LONG_WAIT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("write hold was lost");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG_WAIT.dividedBy(2));
        write.close();
        read.close();
        try (LockHandle again = lock.writeLock().tryAcquire(LONG_WAIT).orElseThrow()) {
            assertThat(again.token().isNewerThan(write.token())).isTrue();
        }
        Optional<LockHandle> other = write(registryB, key).tryAcquire(LONG_WAIT);
        assertThat(other).as("all holds released").isPresent();
        other.get().close();
    }

    @Test
    void readerAskingForTheWriteLockIsRefusedAtOnce() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle read = lock.readLock().acquire()) {
            assertThatThrownBy(() -> lock.writeLock().tryAcquire(LONG_WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining("read lock");
            assertThatThrownBy(() -> lock.writeLock().lock()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lock.writeLock().tryLock()).isInstanceOf(IllegalStateException.class);
            assertThat(lock.writeLock().holdCount()).isZero();
            assertThat(read.isValid()).isTrue();
        }
        try (LockHandle write = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(write.isValid())
                    .as("after the read is released, the write lock is granted")
                    .isTrue();
        }
    }

    @Test
    void unlockOfASideTheThreadDoesNotHoldIsRefused() throws Exception {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle read = lock.readLock().acquire()) {
            assertThatThrownBy(() -> lock.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        }
        assertThatThrownBy(() -> lock.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
    }

    // --- Fencing tokens (contract 5) -----------------------------------------------------

    @Test
    void writeTokensExceedEveryEarlierTokenAndReadTokensNameTheLatestWrite() throws Exception {
        String key = key();
        FencingToken highest = null;
        FencingToken lastWrite = null;
        for (int i = 0; i < 12; i++) {
            LockRegistry owner = i % 2 == 0 ? registryA : registryB;
            boolean writing = i % 3 == 0;
            FencedLock side = writing ? write(owner, key) : read(owner, key);
            try (LockHandle handle = side.tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                FencingToken token = handle.token();
                if (writing) {
                    if (highest != null) {
                        assertThat(token.isNewerThan(highest))
                                .as("write %s after %s", token, highest)
                                .isTrue();
                    }
                    lastWrite = token;
                } else if (lastWrite != null) {
                    assertThat(token.compareTo(lastWrite))
                            .as("read %s observes the write %s", token, lastWrite)
                            .isGreaterThanOrEqualTo(0);
                }
                highest = highest == null || token.isNewerThan(highest) ? token : highest;
            }
        }
    }

    @Test
    void concurrentReadersObserveTheSameWriteEpoch() throws Exception {
        String key = key();
        FencingToken written;
        try (LockHandle write = write(registryA, key).acquire()) {
            written = write.token();
        }
        try (LockHandle first = read(registryA, key).acquire();
                LockHandle second = read(registryB, key).acquire()) {
            assertThat(first.token().compareTo(written)).isGreaterThanOrEqualTo(0);
            assertThat(second.token().compareTo(written)).isGreaterThanOrEqualTo(0);
            assertThat(await(inThread(() -> tryNow(write(registryA, key)))))
                    .as("readers exclude the writer")
                    .isEmpty();
            FencingToken newestRead = first.token().isNewerThan(second.token()) ? first.token() : second.token();
            first.close();
            second.close();
            try (LockHandle next = write(registryB, key).acquire()) {
                assertThat(next.token().isNewerThan(newestRead)).isTrue();
            }
        }
    }

    // --- Waits (contract 6 and 8) --------------------------------------------------------

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

    private static Throwable failureOf(Callable<?> call) {
        try {
            call.call();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    // --- Bad input (contract 10) ---------------------------------------------------------

    @Test
    void badKeysAndDurationsAreRejected() {
        assertThatThrownBy(() -> registryA.readWriteLock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> registryA.readWriteLock(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> registryA.readWriteLock("k".repeat(100_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most");
        FencedReadWriteLock lock = registryA.readWriteLock(key());
        for (FencedLock side : List.of(lock.readLock(), lock.writeLock())) {
            assertThatThrownBy(() -> side.tryAcquire(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("waitTime");
            assertThatThrownBy(() -> side.tryAcquire(Duration.ZERO, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("leaseTime");
            assertThat(side.holdCount()).isZero();
        }
    }

    @Test
    void readWriteLockNamesItsKey() {
        String key = key();
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        assertThat(lock.key()).isEqualTo(key);
        assertThat(lock.readLock().key()).isEqualTo(key);
        assertThat(lock.writeLock().key()).isEqualTo(key);
        assertThatThrownBy(() -> lock.readLock().newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }

    // --- Operations (contract 11) --------------------------------------------------------

    @Test
    void readAndWriteHoldsAreListedAndObservedWithTheirSide() throws Exception {
        String key = key();
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        registryA.addObserver(new LockObserver() {
            @Override
            public void holdStarted(HoldInfo hold) {
                events.add("start " + hold.kind() + " " + hold.key());
            }

            @Override
            public void holdEnded(HoldInfo hold) {
                events.add("end " + hold.kind() + " " + hold.key());
            }
        });
        try (LockHandle write = write(registryA, key).acquire();
                LockHandle read = read(registryA, key).acquire();
                LockHandle plain = registryA.obtain(key).acquire()) {
            assertThat(registryA.holds())
                    .filteredOn(hold -> hold.key().equals(key))
                    .extracting(HoldInfo::kind, hold -> hold.token().value())
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.WRITE, write.token().value()),
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.READ, read.token().value()),
                            org.assertj.core.groups.Tuple.tuple(
                                    HoldInfo.Kind.EXCLUSIVE, plain.token().value()));
            assertThat(registryB.holds()).noneMatch(hold -> hold.key().equals(key));
        }
        assertThat(registryA.holds()).noneMatch(hold -> hold.key().equals(key));
        assertThat(events)
                .containsExactlyInAnyOrder(
                        "start WRITE " + key,
                        "start READ " + key,
                        "start EXCLUSIVE " + key,
                        "end WRITE " + key,
                        "end READ " + key,
                        "end EXCLUSIVE " + key);
    }
}
