package dev.distlock.vthreads;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.contract.OverlapDetector;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The thread-owned API on virtual threads: 10,000 of them contend on 100 keys while JFR records
 * every {@code jdk.VirtualThreadPinned} event. No blocking wait made by lock code may pin its
 * carrier ({@link PinnedWaits} says what counts; a control shows it reports a deliberately pinned
 * wait), and no two holders of a key may overlap (a control run without the lock shows the check
 * sees it). A warm-up runs the same contention first, on Redis with replies made slower than the
 * send queue's hold, so the measured run takes no path for the first time.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class VirtualThreadContentionTest {

    private static final int THREADS = 10_000;
    private static final int WARM_UP_THREADS = 2_000;
    private static final int KEYS = 100;

    /** Lock code: the library's classes, not this test's nor its controls'. */
    private static final Predicate<String> LOCK_CODE =
            type -> type.startsWith("dev.distlock.") && !type.startsWith("dev.distlock.vthreads.");

    @Test
    void memoryBackendNeitherPinsNorOverlapsUnderTenThousandVirtualThreads() throws Exception {
        try (MemoryLockRegistry registry = new MemoryLockRegistry()) {
            contend(registry, true, WARM_UP_THREADS, "vt-warm-up-");
            Run run = contend(registry, true, THREADS, "vt-");
            report("memory", run);
            assertThat(run.pinnedWaitsInLockCode).as("pinned waits in lock code").isEmpty();
            assertThat(run.overlapping).as("keys whose holders overlapped").isZero();
        }
    }

    @Test
    void redisBackendNeitherPinsNorOverlapsUnderTenThousandVirtualThreads() throws Exception {
        try (RedisServers servers = new RedisServers()) {
            ManagedProcess server = servers.start();
            LettuceConnectionFactory factory = servers.factory(server);
            try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
                try (ServerPauses pauses = new ServerPauses(server.port())) {
                    contend(registry, true, WARM_UP_THREADS, "vt-warm-up-");
                    assertThat(pauses.count()).as("pauses during the warm-up").isPositive();
                }
                Run run = contend(registry, true, THREADS, "vt-");
                report("redis", run);
                assertThat(run.pinnedWaitsInLockCode).as("pinned waits in lock code").isEmpty();
                assertThat(run.overlapping).as("keys whose holders overlapped").isZero();
            }
        }
    }

    @Test
    void overlapCheckSeesHoldersThatRunWithoutTheLock() throws Exception {
        try (MemoryLockRegistry registry = new MemoryLockRegistry()) {
            Run run = contend(registry, false, THREADS, "vt-");
            assertThat(run.overlapping).as("the control run must overlap").isPositive();
        }
    }

    @Test
    void pinningCheckSeesAVirtualThreadThatBlocksWhilePinned() throws Exception {
        Predicate<String> controls = type -> type.startsWith(DeliberatePins.class.getName());
        PinnedWaits.Recorded<Void> recorded = PinnedWaits.record(() -> {
            onVirtualThreads(10, i -> DeliberatePins.parkWhileInitialisingAClass());
            return null;
        });

        assertThat(recorded.waitsIn(controls))
                .as("a park inside a class initialiser pins on every JDK")
                .isNotEmpty();
        assertThat(recorded.waitsIn(LOCK_CODE)).as("nothing of the library ran").isEmpty();
    }

    @Test
    void aMonitorHeldAcrossAParkPinsOnlyBeforeJdk24AndAShortSynchronizedSectionNever() throws Exception {
        Predicate<String> controls = type -> type.startsWith(DeliberatePins.class.getName());
        Object monitor = new Object();
        PinnedWaits.Recorded<Void> parked = PinnedWaits.record(() -> {
            onVirtualThreads(10, i -> DeliberatePins.parkHoldingAMonitor(monitor));
            return null;
        });
        PinnedWaits.Recorded<Void> brief = PinnedWaits.record(() -> {
            onVirtualThreads(1_000, i -> DeliberatePins.shortSynchronizedSection(monitor, i));
            return null;
        });

        if (Runtime.version().feature() < 24) {
            assertThat(parked.waitsIn(controls)).as("a park holding a monitor").isNotEmpty();
        } else {
            assertThat(parked.waitsIn(controls)).as("a park holding a monitor (JEP 491)").isEmpty();
        }
        assertThat(brief.waitsIn(controls)).as("a synchronized section that never blocks").isEmpty();
    }

    private interface Task {
        void run(int index) throws Exception;
    }

    private static void onVirtualThreads(int count, Task task) throws Exception {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> tasks = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int index = i;
                tasks.add(threads.submit(() -> {
                    task.run(index);
                    return null;
                }));
            }
            for (Future<?> future : tasks) {
                future.get(5, TimeUnit.MINUTES);
            }
        }
    }

    private record Run(
            long millis, int pinnedEvents, int classLoading, List<String> pinnedWaitsInLockCode, int overlapping) {}

    private static Run contend(LockRegistry registry, boolean locked, int threads, String prefix) throws Exception {
        OverlapDetector[] detectors = new OverlapDetector[KEYS];
        for (int k = 0; k < KEYS; k++) {
            detectors[k] = new OverlapDetector(1);
        }
        long start = System.nanoTime();
        PinnedWaits.Recorded<Void> recorded = PinnedWaits.record(() -> {
            onVirtualThreads(threads, i -> {
                OverlapDetector detector = detectors[i % KEYS];
                if (!locked) {
                    detector.criticalSection();
                    return;
                }
                try (LockHandle handle = registry.obtain(prefix + i % KEYS)
                        .tryAcquire(Duration.ofMinutes(5))
                        .orElseThrow()) {
                    detector.criticalSection();
                }
            });
            return null;
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int overlapping = 0;
        for (OverlapDetector detector : detectors) {
            if (detector.overlapSeen() || detector.completed() != threads / KEYS) {
                overlapping++;
            }
        }
        return new Run(
                millis,
                recorded.events().size(),
                recorded.classLoadingIn(LOCK_CODE),
                recorded.waitsIn(LOCK_CODE),
                overlapping);
    }

    /**
     * Pauses the server's clients for 20 ms every 40 ms, so that replies come later than the send
     * queue holds a command and waiting callers send what waits ({@code SendQueue#sendWaiting}).
     */
    private static final class ServerPauses implements AutoCloseable {

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final Thread pauser;
        private volatile boolean stopped;
        private volatile int count;

        ServerPauses(int port) {
            client = RedisClient.create(RedisURI.create("127.0.0.1", port));
            connection = client.connect();
            pauser = Thread.ofPlatform().name("redis-pauses").start(() -> {
                while (!stopped) {
                    connection.sync().clientPause(20);
                    count++;
                    try {
                        Thread.sleep(40);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        int count() {
            return count;
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            pauser.join(TimeUnit.SECONDS.toMillis(30));
            connection.close();
            client.shutdown();
        }
    }

    private static void report(String backend, Run run) {
        System.out.printf(
                "virtual threads, %s: %d threads on %d keys in %d ms; pinned events %d (in the class loader %d,"
                        + " pinned waits in lock code %d); overlapping keys %d on %s%n",
                backend, THREADS, KEYS, run.millis, run.pinnedEvents, run.classLoading,
                run.pinnedWaitsInLockCode.size(), run.overlapping, Runtime.version());
    }
}
