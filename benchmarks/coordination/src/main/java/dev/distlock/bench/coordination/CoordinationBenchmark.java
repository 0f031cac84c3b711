package dev.distlock.bench.coordination;

import dev.distlock.bench.Benchmark;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.core.multi.MultiLockHandle;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Semaphores and multi-key locks beside the peers that have them, on one server per backend: Redisson's {@code
 * RPermitExpirableSemaphore} and {@code RedissonMultiLock} on a redis-server this benchmark starts, Curator's {@code
 * InterProcessSemaphoreV2} and {@code InterProcessMultiLock} on an in-process ZooKeeper. Each pair is measured in
 * interleaved rounds (the order flips every round) and reported as the median over rounds of distlock's rate divided
 * by the peer's, so that load on the shared machine that hits one round moves the ratio little.
 */
public final class CoordinationBenchmark {

    private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
    private static final Duration WARMUP = Duration.ofSeconds(1);
    private static final Duration SLICE = Duration.ofMillis(Long.getLong("bench.sliceMillis", 2000));
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int PERMITS = 5;
    private static final int THREADS = 4;

    private CoordinationBenchmark() {}

    /** One side of a pair: a name and what one acquire+release is. */
    record Side(String library, Benchmark.Operation operation) {}

    /** Two sides measured in the same rounds. */
    record Pair(String scenario, int threads, Side distlock, Side peer) {}

    /** What the rounds of one pair found. */
    record Outcome(Pair pair, double[] distlock, double[] peer, double[] distlockP99, double[] peerP99) {

        String row() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %s | %,.0f | %s | %,.0f | %s | **%.2f×** |",
                    pair.scenario(),
                    pair.peer().library(),
                    Benchmark.median(distlock),
                    p99(distlockP99),
                    Benchmark.median(peer),
                    p99(peerP99),
                    Benchmark.medianRatio(distlock, peer));
        }

        private static String p99(double[] values) {
            double median = Benchmark.median(values);
            return Double.isNaN(median) ? "–" : String.format(Locale.ROOT, "%,.0f", median);
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/coordination.md");
        // -Dcoordination.backends=redis and -Dcoordination.scenarios=semaphore pick rows for a quick look; the
        // results file is written from a run of every row.
        String backends = System.getProperty("coordination.backends", "redis,zookeeper");
        List<Outcome> outcomes = new ArrayList<>();
        if (backends.contains("redis")) {
            outcomes.addAll(redis());
        }
        if (backends.contains("zookeeper")) {
            outcomes.addAll(zooKeeper());
        }
        write(out, outcomes);
    }

    private static List<Outcome> redis() throws Exception {
        try (RedisServers servers = new RedisServers()) {
            ManagedProcess server = servers.start();
            LettuceConnectionFactory factory = servers.factory(server);
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
            RedissonClient redisson = Redisson.create(config);
            try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
                List<Pair> pairs = new ArrayList<>();
                pairs.add(new Pair(
                        "multi-key lock of 2 keys, acquire+release",
                        1,
                        new Side("distlock MultiLock", multiLock(registry, "m1a", "m1b")),
                        new Side("Redisson RedissonMultiLock", redissonMultiLock(redisson, "rm1a", "rm1b"))));
                pairs.add(new Pair(
                        "multi-key lock of 2 keys, " + THREADS + " threads, the same 2 keys",
                        THREADS,
                        new Side("distlock MultiLock", multiLock(registry, "m2a", "m2b")),
                        new Side("Redisson RedissonMultiLock", redissonMultiLock(redisson, "rm2a", "rm2b"))));
                pairs.addAll(CoordinationSemaphores.redis(registry, redisson, PERMITS, THREADS, WAIT, LEASE));
                return measure(pairs);
            } finally {
                redisson.shutdown();
            }
        }
    }

    private static List<Outcome> zooKeeper() throws Exception {
        // The server skips fsync: on a shared machine the disk, not the recipe, would set every row.
        System.setProperty("zookeeper.forceSync", "no");
        try (TestingServer server = new TestingServer(true);
                CuratorFramework ours = curator(server.getConnectString());
                CuratorFramework peer = curator(server.getConnectString());
                ZooKeeperLockRegistry registry =
                        ZooKeeperLockRegistry.builder(ours).build()) {
            List<Pair> pairs = new ArrayList<>();
            pairs.add(new Pair(
                    "multi-key lock of 2 keys, acquire+release",
                    1,
                    new Side("distlock MultiLock", multiLock(registry, "m1a", "m1b")),
                    new Side("Curator InterProcessMultiLock", curatorMultiLock(peer, "/bench/m1a", "/bench/m1b"))));
            pairs.addAll(CoordinationSemaphores.zooKeeper(registry, peer, PERMITS, THREADS, WAIT, LEASE));
            return measure(pairs);
        }
    }

    static Benchmark.Operation multiLock(LockRegistry registry, String first, String second) {
        MultiLock lock = MultiLock.of(registry, first, second);
        return () -> {
            try (MultiLockHandle handle = lock.tryAcquire(WAIT).orElseThrow()) {
                handle.keys();
            }
        };
    }

    private static Benchmark.Operation redissonMultiLock(RedissonClient redisson, String first, String second) {
        RLock a = redisson.getLock(first);
        RLock b = redisson.getLock(second);
        return () -> {
            // A new multi-lock per call, as Redisson's documentation shows; the watchdog renews both keys.
            RedissonMultiLock lock = new RedissonMultiLock(a, b);
            if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("RedissonMultiLock not acquired within " + WAIT);
            }
            lock.unlock();
        };
    }

    private static Benchmark.Operation curatorMultiLock(CuratorFramework client, String first, String second) {
        InterProcessMultiLock lock = new InterProcessMultiLock(client, List.of(first, second));
        return () -> {
            if (!lock.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("InterProcessMultiLock not acquired within " + WAIT);
            }
            lock.release();
        };
    }

    static Benchmark.Operation curatorSemaphore(CuratorFramework client, String path, int permits) {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, permits);
        return () -> {
            Lease lease = semaphore.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (lease == null) {
                throw new IllegalStateException("InterProcessSemaphoreV2 gave no lease within " + WAIT);
            }
            semaphore.returnLease(lease);
        };
    }

    static Benchmark.Operation redissonSemaphore(RedissonClient redisson, String name, int permits, Duration lease) {
        RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(permits);
        return () -> {
            String permit = semaphore.tryAcquire(WAIT.toMillis(), lease.toMillis(), TimeUnit.MILLISECONDS);
            if (permit == null) {
                throw new IllegalStateException("RPermitExpirableSemaphore gave no permit within " + WAIT);
            }
            semaphore.release(permit);
        };
    }

    private static List<Outcome> measure(List<Pair> pairs) throws InterruptedException {
        String scenarios = System.getProperty("coordination.scenarios", "");
        List<Outcome> outcomes = new ArrayList<>();
        for (Pair pair : pairs) {
            if (!pair.scenario().contains(scenarios)) {
                continue;
            }
            double[] ours = new double[ROUNDS];
            double[] theirs = new double[ROUNDS];
            double[] oursP99 = new double[ROUNDS];
            double[] theirsP99 = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                Duration warmup = round == 0 ? WARMUP : Duration.ZERO;
                boolean peerFirst = round % 2 == 1;
                if (peerFirst) {
                    Benchmark.Result peer = run(pair, pair.peer(), warmup);
                    theirs[round] = peer.opsPerSecond();
                    theirsP99[round] = peer.p99Micros();
                }
                Benchmark.Result distlock = run(pair, pair.distlock(), warmup);
                ours[round] = distlock.opsPerSecond();
                oursP99[round] = distlock.p99Micros();
                if (!peerFirst) {
                    Benchmark.Result peer = run(pair, pair.peer(), warmup);
                    theirs[round] = peer.opsPerSecond();
                    theirsP99[round] = peer.p99Micros();
                }
            }
            Outcome outcome = new Outcome(pair, ours, theirs, oursP99, theirsP99);
            System.out.println(outcome.row());
            outcomes.add(outcome);
        }
        return outcomes;
    }

    private static Benchmark.Result run(Pair pair, Side side, Duration warmup) throws InterruptedException {
        return pair.threads() == 1
                ? Benchmark.uncontended(side.library(), warmup, SLICE, side.operation())
                : Benchmark.contended(side.library(), pair.threads(), warmup, SLICE, side.operation());
    }

    private static CuratorFramework curator(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(100, 3));
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("ZooKeeper at " + connectString + " did not answer within 20 s");
        }
        return client;
    }

    private static void write(Path file, List<Outcome> outcomes) throws Exception {
        StringBuilder text = new StringBuilder()
                .append("# Semaphores and multi-key locks beside their peers\n\n")
                .append(String.format(
                        Locale.ROOT,
                        "Measured %s on %d cores, Java %s: %d interleaved rounds of %d ms per side (the order flips"
                                + " every round); rates are medians over the rounds, the ratio is the median of the"
                                + " per-round ratios (distlock / peer; above 1 means distlock is faster). Permits: %d,"
                                + " fixed leases of %d s where the peer takes a lease. Redis: one redis-server,"
                                + " Redisson %s; ZooKeeper: one in-process server without fsync, Curator %s.\n\n",
                        java.time.Instant.now(),
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        ROUNDS,
                        SLICE.toMillis(),
                        PERMITS,
                        LEASE.toSeconds(),
                        Redisson.class.getPackage().getImplementationVersion(),
                        CuratorFramework.class.getPackage().getImplementationVersion()))
                .append("| scenario | peer | distlock ops/s | distlock p99 µs | peer ops/s | peer p99 µs | ratio |\n")
                .append("|---|---|---:|---:|---:|---:|---:|\n");
        outcomes.forEach(outcome -> text.append(outcome.row()).append('\n'));
        java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
        java.nio.file.Files.writeString(file, text);
        System.out.println(text);
    }
}
