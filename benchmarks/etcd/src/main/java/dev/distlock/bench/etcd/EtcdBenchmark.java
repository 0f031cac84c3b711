package dev.distlock.bench.etcd;

import dev.distlock.bench.Benchmark;
import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.etcd.EtcdLockRegistry;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * distlock's etcd registry beside jetcd's own lock client (etcd's v3 lock service), one thread,
 * on one etcd process this benchmark starts with its default Raft settings. The three contenders
 * run in interleaved rounds (the order turns every round) so that load from other processes
 * falls on all of them alike; each rate is the median over rounds, and ratios are to jetcd's
 * lock with one long-lived lease. Writes {@code benchmarks/results/etcd.md}.
 */
public final class EtcdBenchmark {

    private static final Duration WARMUP = Duration.ofMillis(500);
    private static final Duration MEASURE = Duration.ofMillis(1500);
    private static final int ROUNDS = 16;
    private static final long TIMEOUT_SECONDS = 10;
    private static final String BASELINE = "jetcd Lock, shared lease";

    private EtcdBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path etcd = ManagedProcess.findExecutable("etcd")
                .orElseThrow(() -> new IllegalStateException("etcd is not installed (apt-get install etcd-server)"));
        Path work = Files.createTempDirectory("distlock-etcd-bench");
        Map<String, List<Benchmark.Result>> rounds = new LinkedHashMap<>();
        try (EtcdProcess server = EtcdProcess.start(etcd, "etcd", work);
                Client client = EtcdLockRegistry.requireLeader(Client.builder())
                        .endpoints(server.clientUrl())
                        .build();
                EtcdLockRegistry registry = EtcdLockRegistry.builder(client)
                        .address(server.clientUrl())
                        .build()) {
            Lock locks = client.getLockClient();
            // jetcd's usual long-lived lease: granted once and kept alive by its keep-alive stream.
            long sharedLease = client.getLeaseClient().grant(30).get().getID();
            CloseableClient keepAlive = client.getLeaseClient().keepAlive(sharedLease, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse response) {}

                @Override
                public void onError(Throwable error) {
                    System.err.println("The shared lease's keep-alive failed: " + error);
                }

                @Override
                public void onCompleted() {}
            });
            FencedLock distlockKey = registry.obtain("bench-distlock");
            ByteSequence jetcdKey = bytes("bench-jetcd");
            Map<String, Benchmark.Operation> contenders = new LinkedHashMap<>();
            contenders.put("distlock", () -> {
                try (LockHandle handle = distlockKey.acquire()) {
                    // the critical section is empty: this measures the lock alone
                }
            });
            contenders.put(BASELINE, () -> {
                LockResponse held = locks.lock(jetcdKey, sharedLease).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                locks.unlock(held.getKey()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            });
            contenders.put("jetcd Lock, lease per call", leasePerCall(client, locks, jetcdKey));
            // One unmeasured pass each first, so that neither pays for the JIT or a cold etcd.
            contenders.forEach((name, operation) -> Benchmark.uncontended(name, WARMUP, WARMUP, operation));
            List<String> order = new ArrayList<>(contenders.keySet());
            for (int round = 0; round < ROUNDS; round++) {
                for (String name : order) {
                    rounds.computeIfAbsent(name, k -> new ArrayList<>())
                            .add(Benchmark.uncontended(name, WARMUP, MEASURE, contenders.get(name)));
                }
                Collections.rotate(order, 1);
            }
            keepAlive.close();
        }
        String report = report(version(etcd), rounds);
        Path output = output(args);
        Files.createDirectories(output.toAbsolutePath().getParent());
        Files.writeString(output, report);
        System.out.println(report);
        System.exit(0);
    }

    /** jetcd's lock on {@code key} under a lease granted for this one call and revoked after it. */
    private static Benchmark.Operation leasePerCall(Client client, Lock locks, ByteSequence key) {
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

    private static String report(String etcdVersion, Map<String, List<Benchmark.Result>> rounds) {
        List<Benchmark.Result> baseline = rounds.get(BASELINE);
        StringBuilder text = new StringBuilder()
                .append("# etcd: distlock vs jetcd's Lock client, 1 thread\n\n")
                .append("Measured ")
                .append(Instant.now())
                .append(" on ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ")
                .append(System.getProperty("java.version"))
                .append(", etcd ")
                .append(etcdVersion)
                .append(", jetcd ")
                .append(jarVersion(Client.class))
                .append(".\n\n")
                .append("""
                        One etcd process (`/usr/bin/etcd`, Debian etcd-server, default Raft settings, data on local \
                        disk) started by the benchmark on a loopback port; client and server share the machine, which \
                        other builds were using at the same time. The three contenders ran in %d interleaved rounds \
                        (order rotated each round) of %.1fs warm-up and %.1fs measured, one thread, acquire + release \
                        with an empty critical section. The rate is the median over rounds, p50/p99 from all calls \
                        of the median round. The ratio is to jetcd's lock with one long-lived lease in the same round \
                        (measured next to it, so under the same load), the median over rounds.

                        - **distlock**: `EtcdLockRegistry.acquire()` + `close()` with the watchdog lease (30s). Every \
                        hold of the registry lives on its one session lease (kept alive by one keep-alive for all), so \
                        an acquisition is one transaction (put the queue entry + read who is ahead) and a release one \
                        delete: two Raft writes. The token is the entry's create revision.
                        - **jetcd Lock, shared lease**: `client.getLockClient().lock(name, leaseId)` + `unlock(key)` \
                        with one lease granted up front: two Raft writes. No fencing token by itself, no reentrancy, \
                        no check that the lease is still alive when the lock is granted.
                        - **jetcd Lock, lease per call**: `grant` + `lock` + `unlock` + `revoke`: four requests.

                        | library | ops/s (median of %d rounds) | ratio to jetcd shared lease (median of rounds) | p50 µs | p99 µs | rounds (ops/s) |
                        |---|---:|---:|---:|---:|---|
                        """.formatted(ROUNDS, WARMUP.toMillis() / 1000.0, MEASURE.toMillis() / 1000.0, ROUNDS));
        rounds.forEach((name, results) -> {
            double rate = median(results, Benchmark.Result::opsPerSecond);
            Benchmark.Result middle = results.stream()
                    .sorted(Comparator.comparingDouble(Benchmark.Result::opsPerSecond))
                    .toList()
                    .get(results.size() / 2);
            text.append(String.format(
                    Locale.ROOT,
                    "| %s | %,.0f | %.2f× | %,.0f | %,.0f | %s |%n",
                    name,
                    rate,
                    medianRatio(results, baseline),
                    middle.p50Micros(),
                    middle.p99Micros(),
                    results.stream()
                            .map(r -> String.format(Locale.ROOT, "%.0f", r.opsPerSecond()))
                            .collect(Collectors.joining(", "))));
        });
        return text.toString();
    }

    private static double medianRatio(List<Benchmark.Result> results, List<Benchmark.Result> baseline) {
        double[] ratios = new double[results.size()];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = results.get(i).opsPerSecond() / baseline.get(i).opsPerSecond();
        }
        Arrays.sort(ratios);
        int middle = ratios.length / 2;
        return ratios.length % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
    }

    private static double median(List<Benchmark.Result> results, ToDoubleFunction<Benchmark.Result> value) {
        double[] sorted = results.stream().mapToDouble(value).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** The version in the name of the jar {@code type} came from, e.g. 0.8.6 for jetcd-core-0.8.6.jar. */
    private static String jarVersion(Class<?> type) {
        String jar = Path.of(
                        type.getProtectionDomain().getCodeSource().getLocation().getPath())
                .getFileName()
                .toString();
        return jar.replaceAll("^.*?-(\\d[^-]*(-SNAPSHOT)?)\\.jar$", "$1");
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
