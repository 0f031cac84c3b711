package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Two instances (registries with connection factories of their own) contending for one key in
 * bursts: 200 calls on 50 threads, alternating between them, holds of 2-8 ms, a 5 s wait. A
 * waiter that misses the release it waits for leaves the key free while it (and every thread
 * queued behind it in its registry) sleeps: the check measures the longest stretch in which the
 * key was free while some call waited. Handing over takes milliseconds; a stall takes seconds.
 */
class RedisBurstWakeIT {

    private static final int CALLS = 200;
    private static final int THREADS = 50;
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** Far above any hand-over, even on a loaded machine; far below a wait that missed its wake-up. */
    private static final Duration STALL = Duration.ofSeconds(2);

    private static RedisServers servers;
    private static ManagedProcess server;
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private final List<RedisLockRegistry> registries = new ArrayList<>();
    private ExecutorService threads;

    @BeforeAll
    static void startServer() throws Exception {
        servers = new RedisServers();
        server = servers.start();
        // An instance whose release messages never arrive: it may run scripts (which publish)
        // but not subscribe.
        RedisServers.cli(
                server.port(),
                "ACL",
                "SETUSER",
                "deaf",
                "on",
                ">deaf",
                "~*",
                "&*",
                "+@all",
                "-subscribe",
                "-psubscribe",
                "-ssubscribe");
    }

    @AfterAll
    static void stopServer() {
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void startThreads() {
        threads = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        registries.forEach(RedisLockRegistry::close);
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void noBurstLeavesTheKeyFreeWhileCallsWait() throws Exception {
        RedisLockRegistry a = registry(factory(null), RedisLockBackend.RECHECK);
        RedisLockRegistry b = registry(factory(null), RedisLockBackend.RECHECK);
        for (int burst = 0; burst < 10; burst++) {
            Burst result = burst(a, b, "burst-" + burst);
            assertThat(result.longestIdleWhileWaiting())
                    .as("burst %d: %s", burst, result)
                    .isLessThan(STALL);
        }
    }

    @Test
    void aRegistryThatHearsNoReleaseMessagesStillDoesNotStall() throws Exception {
        RedisLockRegistry hears = registry(factory(null), RedisLockBackend.RECHECK);
        RedisLockRegistry deaf = registry(factory("deaf"), RedisLockBackend.RECHECK);
        for (int burst = 0; burst < 3; burst++) {
            Burst result = burst(hears, deaf, "deaf-" + burst);
            assertThat(result.longestIdleWhileWaiting())
                    .as("burst %d: %s", burst, result)
                    .isLessThan(STALL);
        }
    }

    @Test
    void theCheckCatchesWaitersThatHearNoReleaseAndDoNotLookAgain() throws Exception {
        RedisLockRegistry hears = registry(factory(null), RedisLockBackend.RECHECK);
        RedisLockRegistry deafWithoutRecheck = registry(factory("deaf"), Duration.ofHours(1));
        List<Burst> results = new ArrayList<>();
        for (int burst = 0; burst < 3; burst++) {
            Burst result = burst(hears, deafWithoutRecheck, "control-" + burst);
            results.add(result);
            if (result.longestIdleWhileWaiting().compareTo(STALL) >= 0) {
                return;
            }
        }
        throw new AssertionError("the check saw no stall although one registry never heard a release: " + results);
    }

    private RedisLockRegistry registry(LettuceConnectionFactory factory, Duration recheck) {
        RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofSeconds(30))
                .recheck(recheck)
                .build();
        registries.add(registry);
        return registry;
    }

    /** A factory of its own, as another instance has; {@code user} null for the default user. */
    private LettuceConnectionFactory factory(String user) {
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration("127.0.0.1", server.port());
        if (user != null) {
            config.setUsername(user);
            config.setPassword(user);
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                config,
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    /** One burst: every call's wait and every hold, on the caller's clock. */
    private Burst burst(RedisLockRegistry first, RedisLockRegistry second, String key) throws Exception {
        List<long[]> waits = Collections.synchronizedList(new ArrayList<>());
        List<long[]> holds = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger timeouts = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            RedisLockRegistry registry = i % 2 == 0 ? first : second;
            calls.add(threads.submit(() -> {
                start.await();
                long asked = System.nanoTime();
                Optional<LockHandle> handle = registry.obtain(key).tryAcquire(WAIT);
                long answered = System.nanoTime();
                waits.add(new long[] {asked, answered});
                if (handle.isEmpty()) {
                    timeouts.incrementAndGet();
                    return null;
                }
                Thread.sleep(2 + ThreadLocalRandom.current().nextInt(7));
                holds.add(new long[] {answered, System.nanoTime()});
                handle.get().close();
                return null;
            }));
        }
        start.countDown();
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        Burst result =
                new Burst(key, Duration.ofNanos(longestIdleWhileWaiting(waits, holds)), timeouts.get(), holds.size());
        System.out.println("RedisBurstWakeIT " + result);
        return result;
    }

    /**
     * The longest stretch in which nobody held the key while some call waited for it: the gaps
     * between the merged holds, each cut to the longest wait that overlaps it.
     */
    static long longestIdleWhileWaiting(List<long[]> waits, List<long[]> holds) {
        List<long[]> sorted = new ArrayList<>(holds);
        sorted.sort(Comparator.comparingLong(h -> h[0]));
        long earliest = waits.stream().mapToLong(w -> w[0]).min().orElse(0);
        long latest = waits.stream().mapToLong(w -> w[1]).max().orElse(0);
        List<long[]> gaps = new ArrayList<>();
        long freeSince = earliest;
        for (long[] hold : sorted) {
            if (hold[0] > freeSince) {
                gaps.add(new long[] {freeSince, hold[0]});
            }
            freeSince = Math.max(freeSince, hold[1]);
        }
        if (latest > freeSince) {
            gaps.add(new long[] {freeSince, latest});
        }
        long longest = 0;
        for (long[] gap : gaps) {
            for (long[] wait : waits) {
                longest = Math.max(longest, Math.min(gap[1], wait[1]) - Math.max(gap[0], wait[0]));
            }
        }
        return longest;
    }

    private record Burst(String key, Duration longestIdleWhileWaiting, int timeouts, int granted) {}
}
