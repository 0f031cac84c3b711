package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Waiting on one server: woken by the release message, with a bounded number of subscriptions. */
class RedisWaitingIT {

    private static RedisServers servers;
    private static ManagedProcess server;
    private static LettuceConnectionFactory factory;
    private RedisLockRegistry holder;
    private RedisLockRegistry waiter;
    private ExecutorService threads;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
    }

    @AfterAll
    static void stopServer() {
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void openRegistries() {
        // A 30s lease: a waiter capped only by the holder's lease would wait up to 30s.
        holder = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofSeconds(30))
                .build();
        waiter = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofSeconds(30))
                .build();
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        holder.close();
        waiter.close();
    }

    @Test
    void waiterWakesOnReleaseMessageNotAtTheEndOfTheHoldersLease() throws Exception {
        long slowest = 0;
        for (int round = 0; round < 5; round++) {
            String key = "handoff-" + round;
            LockHandle held = holder.obtain(key).acquire();
            Future<Long> acquiredAt = threads.submit(() -> {
                try (LockHandle handle =
                        waiter.obtain(key).tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                    return System.nanoTime();
                }
            });
            Thread.sleep(300);
            assertThat(acquiredAt.isDone()).isFalse();
            long releasedAt = System.nanoTime();
            held.close();
            slowest = Math.max(slowest, acquiredAt.get(20, TimeUnit.SECONDS) - releasedAt);
        }
        // Far below the holder's remaining lease (~30s) and below any sensible polling interval.
        assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(250));
    }

    @Test
    void aReleaseMessageThatNeverComesCostsTheWaiterARecheckNotItsWait() throws Exception {
        LockHandle held = holder.obtain("unannounced").acquire();
        Future<Optional<LockHandle>> waiting =
                threads.submit(() -> waiter.obtain("unannounced").tryAcquire(Duration.ofSeconds(15)));
        String name = LockKey.of("unannounced").name();
        awaitValue(name, value -> value.split(" ", 3)[2].startsWith("-w"));
        Thread.sleep(2000); // the waiter has subscribed, looked once more and sleeps
        // The key goes without a release message (as if the message were lost on its way).
        RedisServers.cli(server.port(), "DEL", name);

        // Without a re-check the waiter would sleep until its wait or the holder's 30 s lease ended.
        Optional<LockHandle> got = waiting.get(30, TimeUnit.SECONDS);
        assertThat(got)
                .as("the key is free; the waiter finds out by looking again")
                .isPresent();
        got.get().close();
        held.close(); // lost: a WARN, nothing freed
    }

    private static String awaitValue(String name, java.util.function.Predicate<String> wanted) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            String value = RedisServers.cli(server.port(), "GET", name).trim();
            if (value.split(" ", 3).length == 3 && wanted.test(value)) {
                return value;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("the lock value never became what was expected: " + value);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void subscriptionsStayBoundedWhileThousandKeysHaveWaiters() throws Exception {
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            held.add(holder.obtain("many-" + i).tryAcquire(Duration.ZERO).orElseThrow());
        }
        AtomicInteger waits = new AtomicInteger();
        List<Future<?>> waiters = new ArrayList<>();
        for (int t = 0; t < 20; t++) {
            int first = t * 50;
            waiters.add(threads.submit(() -> {
                for (int i = first; i < first + 50; i++) {
                    Optional<LockHandle> got = waiter.obtain("many-" + i).tryAcquire(Duration.ofMillis(40));
                    assertThat(got).isEmpty();
                    waits.incrementAndGet();
                }
                return null;
            }));
        }
        int maxChannels = 0;
        int maxSubscribers = 0;
        while (waiters.stream().anyMatch(f -> !f.isDone())) {
            int patterns = Integer.parseInt(
                    RedisServers.cli(server.port(), "PUBSUB", "NUMPAT").trim());
            long channels = RedisServers.cli(server.port(), "PUBSUB", "CHANNELS")
                    .lines()
                    .filter(line -> !line.isBlank())
                    .count();
            maxChannels = (int) Math.max(maxChannels, patterns + channels);
            maxSubscribers = Math.max(maxSubscribers, subscribers());
            Thread.sleep(20);
        }
        for (Future<?> f : waiters) {
            f.get(30, TimeUnit.SECONDS);
        }
        held.forEach(LockHandle::close);
        assertThat(waits.get()).isEqualTo(1000);
        assertThat(maxSubscribers)
                .as("one subscription for the waiting registry")
                .isEqualTo(1);
        assertThat(maxChannels)
                .as("two channels (the one every registry hears and the waiting registry's own), no patterns")
                .isEqualTo(2);
    }

    @Test
    void onlyAReleaseThatAWaiterAskedForPublishes() throws Exception {
        RedisServers.cli(server.port(), "CONFIG", "RESETSTAT");
        FencedLock lock = holder.obtain("quiet");
        for (int i = 0; i < 50; i++) {
            lock.acquire().close();
        }
        assertThat(publishes()).as("uncontended releases").isZero();
        try (LockHandle held = lock.acquire()) {
            assertThat(waiter.obtain("quiet").tryAcquire(Duration.ofMillis(50))).isEmpty();
        }
        assertThat(publishes()).as("a release with a waiter").isEqualTo(1);
    }

    private static int subscribers() throws Exception {
        String numsub = RedisServers.cli(server.port(), "PUBSUB", "NUMSUB", LockKey.RELEASE_CHANNEL);
        List<String> lines = numsub.lines().filter(line -> !line.isBlank()).toList();
        return Integer.parseInt(lines.get(1).trim());
    }

    private static long publishes() throws Exception {
        String stats = RedisServers.cli(server.port(), "INFO", "commandstats");
        return stats.lines()
                .filter(line -> line.startsWith("cmdstat_publish:"))
                .map(line -> Long.parseLong(line.replaceAll("^cmdstat_publish:calls=(\\d+),.*", "$1")))
                .findFirst()
                .orElse(0L);
    }
}
