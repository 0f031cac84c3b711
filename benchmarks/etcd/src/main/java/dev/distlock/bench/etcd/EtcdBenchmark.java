package dev.distlock.bench.etcd;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.testing.Benchmark;
import dev.distlock.core.testing.FreePorts;
import dev.distlock.core.testing.ManagedProcess;
import dev.distlock.etcd.EtcdLockRegistry;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lock.LockResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * distlock's etcd registry beside jetcd's own lock client (etcd's v3 lock service), on one
 * etcd process this benchmark starts with its default Raft settings. Writes
 * {@code benchmarks/results/etcd.md}.
 */
public final class EtcdBenchmark {

    private static final Duration WARMUP = Duration.ofSeconds(1);
    private static final Duration MEASURE = Duration.ofSeconds(5);
    private static final int THREADS = 4;
    private static final long TIMEOUT_SECONDS = 10;

    private EtcdBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path etcd = ManagedProcess.findExecutable("etcd")
                .orElseThrow(() -> new IllegalStateException("etcd is not installed (apt-get install etcd-server)"));
        Path work = Files.createTempDirectory("distlock-etcd-bench");
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        List<String> command = List.of(
                etcd.toString(),
                "--name=bench",
                "--data-dir=" + work.resolve("data"),
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=bench=" + peerUrl,
                "--logger=zap",
                "--log-outputs=stderr");
        List<Benchmark.Result> results = new ArrayList<>();
        try (ManagedProcess server = ManagedProcess.start("etcd", command, work, clientPort, Duration.ofSeconds(20))) {
            // Both libraries run once before anything is measured, so that neither pays for the JIT or a cold etcd.
            distlock(clientUrl);
            jetcdLock(clientUrl);
            results.addAll(distlock(clientUrl));
            results.addAll(jetcdLock(clientUrl));
        }
        Benchmark.write(
                output(args),
                "etcd: distlock vs jetcd's Lock client",
                """
                One etcd %s process (`/usr/bin/etcd`, Debian etcd-server, default Raft settings, data on local \
                disk) started by the benchmark on a loopback port; client and server share the machine, which \
                other builds were using at the same time, so treat the numbers as rough. Every scenario ran once unmeasured first (JIT, cold etcd), then warmed up %ds and was measured %ds.

                - **distlock**: `EtcdLockRegistry` over one jetcd `Client`; `acquire()` + `close()` with the \
                watchdog lease (30s). Each hold grants its own etcd lease, queues its key and reads the queue in \
                one transaction, and releases with one lease revoke: three Raft writes per operation. Contended: \
                %d registries, each with its own `Client` (standing for %d JVMs), one thread each, on one key; \
                waiters are woken by a watch on their predecessor.
                - **jetcd Lock, shared lease**: `client.getLockClient().lock(name, leaseId)` + `unlock(key)` with \
                one lease granted up front (one per thread when contended, since the lock service tells holders \
                apart by lease): two Raft writes per operation. The jetcd threads share one `Client`.
                - **jetcd Lock, lease per operation**: `grant` + `lock` + `unlock` + `revoke`, the same \
                lease-per-hold scheme as distlock.
                - jetcd's lock service gives no fencing token by itself (the lock key's create revision would be \
                one, read separately), has no reentrancy, and a lock granted after its lease expired is not \
                detected; distlock checks these.
                """.formatted(version(etcd), WARMUP.toSeconds(), MEASURE.toSeconds(), THREADS, THREADS),
                results);
        System.exit(0);
    }

    private static List<Benchmark.Result> distlock(String url) throws Exception {
        List<Benchmark.Result> results = new ArrayList<>();
        try (Client client = Client.builder().endpoints(url).build();
                EtcdLockRegistry registry =
                        EtcdLockRegistry.builder(client).address(url).build()) {
            FencedLock lock = registry.obtain("bench-uncontended");
            results.add(Benchmark.uncontended("distlock", WARMUP, MEASURE, () -> {
                try (LockHandle handle = lock.acquire()) {
                    // the critical section is empty: this measures the lock alone
                }
            }));
        }
        List<Client> clients = new ArrayList<>();
        List<EtcdLockRegistry> registries = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                Client client = Client.builder().endpoints(url).build();
                clients.add(client);
                registries.add(EtcdLockRegistry.builder(client).address(url).build());
            }
            AtomicInteger next = new AtomicInteger();
            ThreadLocal<FencedLock> perThread = ThreadLocal.withInitial(
                    () -> registries.get(next.getAndIncrement() % THREADS).obtain("bench-contended"));
            results.add(Benchmark.contended("distlock", THREADS, WARMUP, MEASURE, () -> {
                try (LockHandle handle = perThread.get().acquire()) {
                    // empty critical section
                }
            }));
        } finally {
            registries.forEach(EtcdLockRegistry::close);
            clients.forEach(Client::close);
        }
        return results;
    }

    /** jetcd's lock on {@code key} under a lease granted for this one operation and revoked after it. */
    private static Benchmark.Operation leasePerOperation(Client client, Lock locks, ByteSequence key) {
        return () -> {
            long lease = client.getLeaseClient()
                    .grant(30)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .getID();
            LockResponse held = locks.lock(key, lease).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            locks.unlock(held.getKey()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            client.getLeaseClient().revoke(lease).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        };
    }

    private static List<Benchmark.Result> jetcdLock(String url) throws Exception {
        List<Benchmark.Result> results = new ArrayList<>();
        try (Client client = Client.builder().endpoints(url).build()) {
            Lock locks = client.getLockClient();
            ByteSequence uncontended = bytes("bench-jetcd-uncontended");
            long shared = client.getLeaseClient().grant(60).get().getID();
            results.add(Benchmark.uncontended("jetcd Lock, shared lease", WARMUP, MEASURE, () -> {
                LockResponse held = locks.lock(uncontended, shared).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                locks.unlock(held.getKey()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }));
            results.add(Benchmark.uncontended(
                    "jetcd Lock, lease per operation", WARMUP, MEASURE, leasePerOperation(client, locks, uncontended)));
            ByteSequence contended = bytes("bench-jetcd-contended");
            ThreadLocal<Long> leasePerThread = ThreadLocal.withInitial(() -> {
                try {
                    return client.getLeaseClient().grant(120).get().getID();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            results.add(Benchmark.contended("jetcd Lock, lease per thread", THREADS, WARMUP, MEASURE, () -> {
                LockResponse held = locks.lock(contended, leasePerThread.get()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                locks.unlock(held.getKey()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }));
            results.add(Benchmark.contended(
                    "jetcd Lock, lease per operation",
                    THREADS,
                    WARMUP,
                    MEASURE,
                    leasePerOperation(client, locks, contended)));
        }
        return results;
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private static String version(Path etcd) {
        try {
            Process process = new ProcessBuilder(etcd.toString(), "--version").start();
            String first = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .findFirst()
                    .orElse("");
            return first.replace("etcd Version:", "").trim();
        } catch (Exception e) {
            return "(version unknown)";
        }
    }

    private static Path output(String[] args) {
        if (args.length > 0) {
            return Path.of(args[0]);
        }
        Path fromRoot = Path.of("benchmarks", "results", "etcd.md");
        return Files.isDirectory(Path.of("benchmarks")) ? fromRoot : Path.of("..", "results", "etcd.md");
    }
}
