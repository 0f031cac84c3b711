package dev.distlock.bench.zookeeper;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.testing.Benchmark;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Version;

/**
 * distlock's ZooKeeper registry beside Curator's {@link InterProcessMutex}, on one in-process
 * curator-test server that both share. Each distlock row is followed at once by its Curator
 * counterpart, so that load from other work on the machine hits both alike. Writes
 * {@code benchmarks/results/zookeeper.md}.
 */
public final class ZooKeeperBenchmark {

    private static final Duration WARMUP = Duration.ofSeconds(3);
    private static final Duration MEASURE = Duration.ofSeconds(5);
    private static final int THREADS = 4;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<CuratorFramework> clients = new ArrayList<>();
    private final String connect;

    private ZooKeeperBenchmark(String connect) {
        this.connect = connect;
    }

    public static void main(String[] args) throws Exception {
        Path output = Path.of(args.length > 0 ? args[0] : "benchmarks/results/zookeeper.md");
        List<Benchmark.Result> results;
        try (TestingServer server = new TestingServer(true)) {
            ZooKeeperBenchmark benchmark = new ZooKeeperBenchmark(server.getConnectString());
            try {
                results = benchmark.run();
            } finally {
                benchmark.clients.forEach(CuratorFramework::close);
            }
        }
        Benchmark.write(
                output,
                "ZooKeeper backend benchmark",
                "One in-process ZooKeeper " + Version.getFullVersion().split("-")[0]
                        + " server (curator-test `TestingServer`, default settings, so every write is fsynced to"
                        + " the temp directory) in the benchmark's JVM, shared by both libraries; Curator "
                        + CuratorFramework.class.getPackage().getImplementationVersion() + ". Warm-up "
                        + WARMUP.toSeconds() + " s, measurement " + MEASURE.toSeconds() + " s per row; each distlock"
                        + " row is run right before its Curator counterpart.\n\n"
                        + "- *distlock*: `ZooKeeperLockRegistry`, `tryAcquire` + close of one key. An acquisition is"
                        + " a create (protected ephemeral-sequential) and a read of the key's children; a release is"
                        + " one delete. Every call is a Curator background call awaited with the caller's deadline.\n"
                        + "- *distlock, 1 registry*: the 4 threads share a registry, which queues them locally, so"
                        + " one at a time has a node on the server. *distlock, 4 registries*: each thread has its"
                        + " own registry and client (stands for 4 JVMs), so every handoff goes through the server.\n"
                        + "- *Curator InterProcessMutex*: one mutex per thread (the recipe's reentrancy is per"
                        + " thread), on one shared client, or each on its own client for the 4-client row.\n"
                        + "- Why distlock is slower here: every ZooKeeper call is a Curator background call whose"
                        + " answer the caller awaits with its deadline (so a silent partition cannot hold it past"
                        + " its wait time); that costs one more thread hop per call (ZooKeeper's event thread) than"
                        + " Curator's blocking calls, which on an in-process server is a large share of a call."
                        + " With 1 registry, the registry's local queue means a handoff is delete + create + read"
                        + " in turn, where Curator's 4 mutexes already have their nodes queued on the server.\n"
                        + "- The machine was shared with other builds while this ran (load average 3-8 on 2"
                        + " cores); runs differed by up to 2x, so compare rows of one run only.",
                results);
    }

    private List<Benchmark.Result> run() throws Exception {
        List<Benchmark.Result> results = new ArrayList<>();
        CuratorFramework shared = client();
        ZooKeeperLockRegistry single = ZooKeeperLockRegistry.builder(shared)
                .rootPath("/bench-distlock")
                .build();
        FencedLock lock = single.obtain("uncontended");
        results.add(Benchmark.uncontended("distlock", WARMUP, MEASURE, () -> {
            try (LockHandle handle = lock.tryAcquire(WAIT).orElseThrow()) {
                // acquire + release only
            }
        }));
        InterProcessMutex mutex = new InterProcessMutex(shared, "/bench-curator/uncontended");
        results.add(Benchmark.uncontended("Curator InterProcessMutex", WARMUP, MEASURE, () -> lockOnce(mutex)));

        results.add(Benchmark.contended("distlock, 1 registry", THREADS, WARMUP, MEASURE, () -> {
            try (LockHandle handle =
                    single.obtain("contended-1").tryAcquire(WAIT).orElseThrow()) {
                // handoff
            }
        }));
        ThreadLocal<InterProcessMutex> sameClient =
                ThreadLocal.withInitial(() -> new InterProcessMutex(shared, "/bench-curator/contended-1"));
        results.add(Benchmark.contended(
                "Curator InterProcessMutex, 1 client", THREADS, WARMUP, MEASURE, () -> lockOnce(sameClient.get())));

        List<CuratorFramework> own = new ArrayList<>();
        List<ZooKeeperLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            own.add(client());
            registries.add(ZooKeeperLockRegistry.builder(own.get(i))
                    .rootPath("/bench-distlock")
                    .build());
        }
        ThreadLocal<FencedLock> ownLock = slot(registries, registry -> registry.obtain("contended-n"));
        results.add(Benchmark.contended("distlock, 4 registries", THREADS, WARMUP, MEASURE, () -> {
            try (LockHandle handle = ownLock.get().tryAcquire(WAIT).orElseThrow()) {
                // handoff
            }
        }));
        ThreadLocal<InterProcessMutex> ownMutex =
                slot(own, client -> new InterProcessMutex(client, "/bench-curator/contended-n"));
        results.add(Benchmark.contended(
                "Curator InterProcessMutex, 4 clients", THREADS, WARMUP, MEASURE, () -> lockOnce(ownMutex.get())));

        registries.forEach(ZooKeeperLockRegistry::close);
        single.close();
        return results;
    }

    private static void lockOnce(InterProcessMutex mutex) throws Exception {
        if (!mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("InterProcessMutex not acquired within " + WAIT);
        }
        mutex.release();
    }

    /** Gives each benchmark thread its own element of {@code items}, mapped once. */
    private static <T, R> ThreadLocal<R> slot(List<T> items, Function<T, R> map) {
        AtomicInteger next = new AtomicInteger();
        return ThreadLocal.withInitial(() -> map.apply(items.get(next.getAndIncrement())));
    }

    private CuratorFramework client() throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(connect, 30_000, 15_000, new ExponentialBackoffRetry(100, 3));
        client.start();
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No connection to the in-process ZooKeeper at " + connect);
        }
        clients.add(client);
        return client;
    }
}
