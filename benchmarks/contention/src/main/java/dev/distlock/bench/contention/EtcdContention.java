package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark.Operation;
import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import dev.distlock.etcd.EtcdLockRegistry;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One etcd member this benchmark starts on free loopback ports: distlock's {@code EtcdLockRegistry}
 * alone (jetcd's lock client has no read/write lock, and its waiters are measured in {@code
 * benchmarks/etcd}), every registry on a jetcd {@code Client} of its own.
 */
final class EtcdContention implements Backend {

    private static final String RW_KEY = "bench-rw";

    private final Path etcd = ManagedProcess.findExecutable("etcd")
            .orElseThrow(() -> new IllegalStateException("etcd is not installed (apt-get install etcd-server)"));
    private final String clientUrl;
    private final ManagedProcess server;

    EtcdContention() throws IOException {
        Path work = Files.createTempDirectory("distlock-etcd-contention");
        EtcdProcess started = EtcdProcess.start(etcd, "etcd", work);
        clientUrl = started.clientUrl();
        server = started.process();
    }

    @Override
    public String describe() {
        try {
            Process process = new ProcessBuilder(etcd.toString(), "--version").start();
            String version = new String(process.getInputStream().readAllBytes())
                    .lines()
                    .findFirst()
                    .orElse("etcd ?");
            return version.replace("Version:", "").replaceAll("\\s+", " ").trim() + " on loopback, started by the"
                    + " benchmark";
        } catch (IOException e) {
            return "etcd ? on loopback, started by the benchmark";
        }
    }

    @Override
    public ReadWriteMix.Result readWrite(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            LockRegistry a = registry(closer);
            LockRegistry b = registry(closer);
            FencedLock read = a.readWriteLock("bench-read").readLock();
            FencedLock write = a.readWriteLock("bench-write").writeLock();
            FencedLock plainA = a.obtain("bench-plain");
            FencedLock plainB = b.obtain("bench-plain");
            return ReadWriteMix.Alone.measure(
                    "etcd",
                    ReadWriteMix.Subject.distlock("distlock", a, b, RW_KEY),
                    () -> read.acquire().close(),
                    () -> write.acquire().close(),
                    List.of(
                            () -> plainA.acquire().close(),
                            () -> plainB.acquire().close()),
                    settings);
        }
    }

    @Override
    public List<ManyWaiters.Outcome> manyWaiters(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            List<Operation> ours = new ArrayList<>();
            for (int i = 0; i < settings.waiters(); i++) {
                FencedLock lock = registry(closer).obtain("bench-many");
                ours.add(() -> lock.acquire().close());
            }
            return ManyWaiters.measure(
                    "etcd",
                    List.of(new ManyWaiters.Subject(
                            "distlock",
                            ours,
                            new EtcdCounters(clientUrl, server.pid()),
                            settings.waiters() + " clients, a thread each, an `EtcdLockRegistry` and jetcd `Client`"
                                    + " each")),
                    settings);
        }
    }

    @Override
    public LockRegistry newRegistry(Closer closer) {
        return registry(closer);
    }

    private LockRegistry registry(Closer closer) {
        Client client = closer.add(Client.builder().endpoints(clientUrl).build());
        return closer.add(EtcdLockRegistry.builder(client).address(clientUrl).build());
    }

    @Override
    public LeaderHandOver.Result leaderHandOver() throws Exception {
        try (Closer closer = new Closer()) {
            return LeaderHandOver.measure("etcd", registry(closer), registry(closer));
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
