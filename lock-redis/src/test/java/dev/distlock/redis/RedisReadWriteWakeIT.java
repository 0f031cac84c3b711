package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redis read/write waits: woken by the release message (well before the 1 s intent refresh or any
 * lease end), a waiting writer that died holds readers back only until its intent ends, and an
 * idle key leaves nothing on the server.
 */
class RedisReadWriteWakeIT {

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
        // 30 s leases: a waiter that missed the message would wait for the intent refresh (1 s) at least.
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
    void writerWakesWhenTheLastReaderReleases() throws Exception {
        long slowest = 0;
        for (int round = 0; round < 5; round++) {
            String key = "rw-readers-" + round;
            LockHandle first = holder.readWriteLock(key).readLock().acquire();
            LockHandle second = threads.submit(
                            () -> holder.readWriteLock(key).readLock().acquire())
                    .get(10, TimeUnit.SECONDS);
            Future<Long> writer = threads.submit(() -> acquiredAt(waiter.readWriteLock(key), true));
            Thread.sleep(settle(round));
            first.close();
            Thread.sleep(300);
            assertThat(writer.isDone()).as("one reader still holds the key").isFalse();
            long releasedAt = System.nanoTime();
            threads.submit(second::close).get(10, TimeUnit.SECONDS);
            slowest = Math.max(slowest, writer.get(20, TimeUnit.SECONDS) - releasedAt);
        }
        assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(250));
    }

    @Test
    void readerWakesWhenTheWriterReleases() throws Exception {
        long slowest = 0;
        for (int round = 0; round < 5; round++) {
            String key = "rw-writer-" + round;
            LockHandle held = holder.readWriteLock(key).writeLock().acquire();
            Future<Long> reader = threads.submit(() -> acquiredAt(waiter.readWriteLock(key), false));
            Thread.sleep(settle(round));
            assertThat(reader.isDone()).isFalse();
            long releasedAt = System.nanoTime();
            held.close();
            long took = reader.get(20, TimeUnit.SECONDS) - releasedAt;
            slowest = Math.max(slowest, took);
        }
        assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(250));
    }

    /**
     * How long to let the waiter settle: its registry's first wait opens the registry's one
     * subscription, which takes a while on a fresh connection; wake-ups count once it is open.
     */
    private static long settle(int round) {
        return round == 0 ? 3000 : 300;
    }

    private static long acquiredAt(FencedReadWriteLock lock, boolean write) throws InterruptedException {
        try (LockHandle handle = (write ? lock.writeLock() : lock.readLock())
                .tryAcquire(Duration.ofSeconds(20))
                .orElseThrow()) {
            return System.nanoTime();
        }
    }

    @Test
    void onlyReleasesThatAWaiterAskedForPublish() throws Exception {
        RedisServers.cli(server.port(), "CONFIG", "RESETSTAT");
        FencedReadWriteLock lock = holder.readWriteLock("rw-quiet");
        for (int i = 0; i < 20; i++) {
            lock.readLock().acquire().close();
            lock.writeLock().acquire().close();
        }
        assertThat(publishes()).as("uncontended releases").isZero();
    }

    @Test
    void waitingWriterThatDiedHoldsReadersBackOnlyUntilItsIntentEnds() throws Exception {
        String key = "rw-ghost";
        long serverMillis = Long.parseLong(RedisServers.cli(server.port(), "TIME")
                        .lines()
                        .findFirst()
                        .orElseThrow()
                        .trim())
                * 1000;
        // A writer queued for this key, then its process died: nobody refreshes or withdraws its intent.
        RedisServers.cli(
                server.port(),
                "ZADD",
                LockKey.of(key).name() + ":rw:writers",
                Long.toString(serverMillis + 2500),
                "ghost:1:1");
        FencedReadWriteLock lock = holder.readWriteLock(key);
        assertThat(lock.readLock().tryAcquire(Duration.ZERO))
                .as("readers queue behind the writer")
                .isEmpty();
        Optional<LockHandle> reader = lock.readLock().tryAcquire(Duration.ofSeconds(10));
        assertThat(reader).as("the dead writer's intent ended").isPresent();
        reader.get().close();
    }

    @Test
    void idleKeyLeavesNothingOnTheServer() throws Exception {
        String key = "rw-idle";
        FencedReadWriteLock lock = holder.readWriteLock(key);
        try (LockHandle write = lock.writeLock().acquire();
                LockHandle read = lock.readLock().acquire()) {
            assertThat(keysOf(key)).isPositive();
        }
        lock.readLock().acquire().close();
        assertThat(keysOf(key)).isZero();
    }

    private static int keysOf(String key) throws Exception {
        String hash = LockKey.of(key).name() + ":rw";
        return Integer.parseInt(RedisServers.cli(server.port(), "EXISTS", hash, hash + ":readers", hash + ":writers")
                .trim());
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
