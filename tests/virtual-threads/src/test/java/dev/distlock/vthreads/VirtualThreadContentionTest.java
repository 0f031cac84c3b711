package dev.distlock.vthreads;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.MemoryLockRegistry;
import dev.distlock.core.contract.OverlapDetector;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The thread-owned API on virtual threads: 10,000 of them contend on 100 keys while JFR records
 * every {@code jdk.VirtualThreadPinned} event (after one warm-up hold has loaded the classes). No pinned carrier may have lock code on its stack,
 * and no two holders of a key may overlap (a control run without the lock shows the check sees it).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class VirtualThreadContentionTest {

    private static final int THREADS = 10_000;
    private static final int KEYS = 100;

    @Test
    void memoryBackendNeitherPinsNorOverlapsUnderTenThousandVirtualThreads() throws Exception {
        try (MemoryLockRegistry registry = new MemoryLockRegistry()) {
            Run run = contend(registry, true);
            report("memory", run);
            assertThat(run.pinnedInLockCode).as("pinned carriers with lock code on the stack").isEmpty();
            assertThat(run.overlapping).as("keys whose holders overlapped").isZero();
        }
    }

    @Test
    void redisBackendNeitherPinsNorOverlapsUnderTenThousandVirtualThreads() throws Exception {
        try (RedisServers servers = new RedisServers()) {
            LettuceConnectionFactory factory = servers.factory(servers.start());
            try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
                Run run = contend(registry, true);
                report("redis", run);
                assertThat(run.pinnedInLockCode).as("pinned carriers with lock code on the stack").isEmpty();
                assertThat(run.overlapping).as("keys whose holders overlapped").isZero();
            }
        }
    }

    @Test
    void overlapCheckSeesHoldersThatRunWithoutTheLock() throws Exception {
        try (MemoryLockRegistry registry = new MemoryLockRegistry()) {
            Run run = contend(registry, false);
            assertThat(run.overlapping).as("the control run must overlap").isPositive();
        }
    }

    private record Run(long millis, int pinnedEvents, List<String> pinnedInLockCode, int overlapping) {}

    private static Run contend(LockRegistry registry, boolean locked) throws Exception {
        OverlapDetector[] detectors = new OverlapDetector[KEYS];
        for (int k = 0; k < KEYS; k++) {
            detectors[k] = new OverlapDetector(1);
        }
        warmUp(registry);
        Path jfr = Files.createTempFile("distlock-vthreads-", ".jfr");
        long start = System.nanoTime();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> tasks = new ArrayList<>(THREADS);
                for (int i = 0; i < THREADS; i++) {
                    int k = i % KEYS;
                    tasks.add(threads.submit(() -> {
                        if (!locked) {
                            detectors[k].criticalSection();
                            return null;
                        }
                        try (LockHandle handle = registry.obtain("vt-" + k)
                                .tryAcquire(Duration.ofMinutes(5))
                                .orElseThrow()) {
                            detectors[k].criticalSection();
                        }
                        return null;
                    }));
                }
                for (Future<?> task : tasks) {
                    task.get(5, TimeUnit.MINUTES);
                }
            }
            recording.stop();
            recording.dump(jfr);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int pinned = 0;
        List<String> inLockCode = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
            if (!event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                continue;
            }
            pinned++;
            if (event.getStackTrace() != null) {
                for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                    String type = frame.getMethod().getType().getName();
                    if (type.startsWith("dev.distlock.") && !type.startsWith("dev.distlock.vthreads.")) {
                        inLockCode.add(type + "." + frame.getMethod().getName());
                        break;
                    }
                }
            }
        }
        Files.deleteIfExists(jfr);
        int overlapping = 0;
        for (OverlapDetector detector : detectors) {
            if (detector.overlapSeen() || detector.completed() != THREADS / KEYS) {
                overlapping++;
            }
        }
        return new Run(millis, pinned, inLockCode, overlapping);
    }

    /**
     * Loads and initialises the lock code's classes before recording: a virtual thread that runs
     * a class initialiser pins its carrier (a native frame), once per class, whatever the code.
     */
    private static void warmUp(LockRegistry registry) throws Exception {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            threads.submit(() -> {
                        for (int i = 0; i < 3; i++) {
                            registry.obtain("vt-warm-up").tryAcquire(Duration.ofSeconds(10)).orElseThrow().close();
                        }
                        return null;
                    })
                    .get(1, TimeUnit.MINUTES);
        }
    }

    private static void report(String backend, Run run) {
        System.out.printf(
                "virtual threads, %s: %d threads on %d keys in %d ms; pinned events %d (in lock code %d); overlapping keys %d on %s%n",
                backend, THREADS, KEYS, run.millis, run.pinnedEvents, run.pinnedInLockCode.size(), run.overlapping,
                Runtime.version());
    }
}
