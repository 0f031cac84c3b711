package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark.Operation;
import dev.distlock.core.FencedLock;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * One in-process ZooKeeper server (curator-test, no fsync, no limit on connections per address, four-letter words
 * allowed): distlock's {@code ZooKeeperLockRegistry} beside Curator's {@code InterProcessReadWriteLock} and
 * {@code InterProcessMutex}, every registry and every Curator lock on a client (session) of its own.
 */
final class ZooKeeperContention implements Backend {

    private static final String RW_KEY = "bench-rw";
    private static final String MANY_KEY = "bench-many";

    private final TestingServer server;

    ZooKeeperContention() throws Exception {
        // On a shared machine the disk, not the lock, would set every row.
        System.setProperty("zookeeper.forceSync", "no");
        // mntr, for the server's packet counts; read once by the server, so set before it starts.
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        // 0: no limit on connections from one address (the default, 60, is less than 2 x 50 clients).
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, 0, Map.of()), true);
    }

    @Override
    public String describe() {
        return "ZooKeeper " + org.apache.zookeeper.Version.getFullVersion().replaceAll("[- ].*", "")
                + " in-process (curator-test `TestingServer`, no fsync); Curator "
                + CuratorFramework.class.getPackage().getImplementationVersion();
    }

    @Override
    public ReadWriteMix.Result readWrite(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            ZooKeeperLockRegistry a =
                    closer.add(ZooKeeperLockRegistry.builder(curator(closer)).build());
            ZooKeeperLockRegistry b =
                    closer.add(ZooKeeperLockRegistry.builder(curator(closer)).build());
            CuratorFramework peerA = curator(closer);
            CuratorFramework peerB = curator(closer);
            String path = "/bench/" + RW_KEY;
            List<Operation> peerReaders = new ArrayList<>();
            for (int i = 0; i < ReadWriteMix.READERS; i++) {
                peerReaders.add(
                        acquireRelease(new InterProcessReadWriteLock(i % 2 == 0 ? peerA : peerB, path).readLock()));
            }
            return ReadWriteMix.VersusPeer.measure(
                    "zookeeper",
                    ReadWriteMix.Subject.distlock("distlock", a, b, RW_KEY),
                    new ReadWriteMix.Subject(
                            "Curator InterProcessReadWriteLock",
                            peerReaders,
                            acquireRelease(new InterProcessReadWriteLock(peerB, path).writeLock())),
                    settings);
        }
    }

    @Override
    public List<ManyWaiters.Outcome> manyWaiters(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            List<Operation> ours = new ArrayList<>();
            List<Operation> theirs = new ArrayList<>();
            for (int i = 0; i < settings.waiters(); i++) {
                ZooKeeperLockRegistry registry = closer.add(
                        ZooKeeperLockRegistry.builder(curator(closer)).build());
                FencedLock lock = registry.obtain(MANY_KEY);
                ours.add(() -> lock.acquire().close());
                theirs.add(acquireRelease(new InterProcessMutex(curator(closer), "/bench/" + MANY_KEY)));
            }
            ZooKeeperCounters counters = new ZooKeeperCounters(server.getPort());
            String clients = settings.waiters() + " clients, a thread each";
            return ManyWaiters.measure(
                    "zookeeper",
                    List.of(
                            new ManyWaiters.Subject(
                                    "distlock",
                                    ours,
                                    counters,
                                    clients + ", a `ZooKeeperLockRegistry` and `CuratorFramework` each"),
                            new ManyWaiters.Subject(
                                    "Curator InterProcessMutex",
                                    theirs,
                                    counters,
                                    clients + ", a `CuratorFramework` each")),
                    settings);
        }
    }

    private static Operation acquireRelease(InterProcessLock lock) {
        return () -> {
            lock.acquire();
            lock.release();
        };
    }

    @Override
    public dev.distlock.core.LockRegistry newRegistry(Closer closer) throws InterruptedException {
        return closer.add(ZooKeeperLockRegistry.builder(curator(closer)).build());
    }

    private CuratorFramework curator(Closer closer) throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(server.getConnectString(), new ExponentialBackoffRetry(100, 3));
        client.start();
        closer.add(client);
        if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    "ZooKeeper at " + server.getConnectString() + " did not answer within 20 s");
        }
        return client;
    }

    @Override
    public LeaderHandOver.Result leaderHandOver() throws Exception {
        try (Closer closer = new Closer()) {
            return LeaderHandOver.measure(
                    "zookeeper",
                    closer.add(ZooKeeperLockRegistry.builder(curator(closer)).build()),
                    closer.add(ZooKeeperLockRegistry.builder(curator(closer)).build()));
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
