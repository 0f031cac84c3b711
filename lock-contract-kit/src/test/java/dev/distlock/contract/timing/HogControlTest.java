package dev.distlock.contract.timing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control of the inconclusive rule: while threads spin on every core, a correct backend's wait never fails its
 * check and an overrun during a stall over the margin is measured again, while a backend that overruns on purpose
 * still fails.
 */
class HogControlTest {

    /** Rule 8's promise on a timed-out wait: its wait time plus this. */
    private static final Duration PROMISED_OVERRUN = Duration.ofMillis(250);

    private static final Duration WAIT = Duration.ofMillis(200);

    /** Spinning threads per core: enough that a thread that wakes up often waits for a core. */
    private static final int HOG_THREADS_PER_CORE = 4;

    private static final Duration HOG_AT_MOST = Duration.ofSeconds(4);

    @TempDir
    Path dir;

    private final MemoryLockStore store = new MemoryLockStore();
    private final LockRegistry holder =
            MemoryLockRegistry.builder().store(store).build();
    private final LockRegistry waiter =
            MemoryLockRegistry.builder().store(store).build();
    private LockHandle held;

    @BeforeEach
    void holdTheKey() throws InterruptedException {
        held = holder.obtain("contended").acquire();
    }

    @AfterEach
    void closeRegistries() {
        held.close();
        holder.close();
        waiter.close();
    }

    private TimingBound check(Duration margin) {
        return TimingBound.of("HogControlTest", margin).withReport(dir.resolve("inconclusive.txt"));
    }

    /** A timed-out wait on the held key, returning {@code late} past what it took; the bound is the promise plus margin. */
    private TimingBound.Measurement waitOnTheHeldKey(Duration margin, Duration late) {
        return () -> {
            long start = System.nanoTime();
            assertThat(waiter.obtain("contended").tryAcquire(WAIT)).isEmpty();
            Thread.sleep(late.toMillis());
            return Timed.since(start, WAIT.plus(PROMISED_OVERRUN).plus(margin));
        };
    }

    @Test
    void correctWaitNeverFailsItsCheckUnderAHog() throws Exception {
        Duration margin = Duration.ofMillis(500);
        Instant from = Instant.now();
        try (CpuHog hog = CpuHog.onEveryCore(HOG_THREADS_PER_CORE, HOG_AT_MOST)) {
            for (int i = 0; i < 3; i++) {
                assertThat(check(margin).check(waitOnTheHeldKey(margin, Duration.ZERO)))
                        .isBetween(0, TimingBound.MAX_REPEATS);
            }
        }
        assertThat(StallProbe.shared().worstStall(from, Instant.now()))
                .as("the hog kept this JVM's threads waiting for a core")
                .isGreaterThan(Duration.ofMillis(1));
    }

    @Test
    void overrunDuringAStallOverTheMarginUnderAHogIsRepeatedNotFailed() throws Exception {
        Duration margin = Duration.ofMillis(100);
        AtomicInteger measurements = new AtomicInteger();
        TimingBound.Measurement wait = waitOnTheHeldKey(margin, Duration.ZERO);
        int repeats;
        try (CpuHog hog = CpuHog.onEveryCore(HOG_THREADS_PER_CORE, HOG_AT_MOST)) {
            repeats = check(margin).check(() -> {
                if (measurements.getAndIncrement() > 0) {
                    return wait.measure();
                }
                long start = System.nanoTime(); // the first measurement: this JVM stalls far past the bound
                Instant from = Instant.now();
                Stops.stop(ProcessHandle.current().pid(), Duration.ofMillis(800));
                wait.measure();
                while (StallProbe.shared().worstStall(from, Instant.now()).compareTo(margin) <= 0) {
                    Thread.sleep(10); // the stop can come after the wait: starting its shell takes a while
                }
                return Timed.since(start, WAIT.plus(PROMISED_OVERRUN).plus(margin));
            });
        }
        assertThat(repeats).isBetween(1, TimingBound.MAX_REPEATS);
        assertThat(Files.readAllLines(dir.resolve("inconclusive.txt")))
                .first()
                .asString()
                .startsWith("INCONCLUSIVE-TIMING HogControlTest ")
                .endsWith("repeat=1/2");
    }

    @Test
    void backendThatOverrunsOnPurposeFailsEvenUnderAHog() throws Exception {
        Duration margin = Duration.ofMillis(500);
        Duration pastTheBound = PROMISED_OVERRUN.plus(margin).plusSeconds(1);
        try (CpuHog hog = CpuHog.onEveryCore(HOG_THREADS_PER_CORE, HOG_AT_MOST)) {
            assertThatThrownBy(() -> check(margin).check(waitOnTheHeldKey(margin, pastTheBound)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("HogControlTest");
        }
    }
}
