package dev.distlock.bench.zookeeper;

import dev.distlock.bench.Benchmark;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Version;
import org.apache.zookeeper.server.ServerMetrics;

/**
 * distlock's ZooKeeper registry beside Curator's {@link InterProcessMutex}, on one in-process
 * curator-test server that both share. Each scenario runs in interleaved rounds: a short slice
 * of distlock, then one of Curator (the order alternating from round to round), so that load
 * from other work on the machine hits both alike; the headline ratio is the median of the per-round ratios.
 * Writes {@code benchmarks/results/zookeeper.md}.
 */
public final class ZooKeeperBenchmark {

    private static final int ROUNDS = 16;
    private static final Duration SLICE = Duration.ofMillis(1000);
    private static final Duration SLICE_WARMUP = Duration.ofMillis(200);
    private static final Duration WARMUP = Duration.ofSeconds(3);
    private static final int THREADS = 4;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String DISTLOCK_ROOT = "/bench-distlock";
    private static final String CURATOR_ROOT = "/bench-curator";

    private final List<CuratorFramework> clients = new ArrayList<>();
    private final String connect;

    private ZooKeeperBenchmark(String connect) {
        this.connect = connect;
    }

    public static void main(String[] args) throws Exception {
        Path output = Path.of(args.length > 0 ? args[0] : "benchmarks/results/zookeeper.md");
        List<Comparison> comparisons;
        String loadBefore = loadAverage();
        try (TestingServer server = new TestingServer(true)) {
            ZooKeeperBenchmark benchmark = new ZooKeeperBenchmark(server.getConnectString());
            try {
                comparisons = benchmark.run();
            } finally {
                benchmark.clients.forEach(CuratorFramework::close);
            }
        }
        write(output, comparisons, loadBefore, loadAverage());
    }

    /** The 1, 5 and 15 minute load averages, where the system tells them. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private List<Comparison> run() throws Exception {
        List<Comparison> comparisons = new ArrayList<>();
        CuratorFramework shared = client();
        ZooKeeperLockRegistry single =
                ZooKeeperLockRegistry.builder(shared).rootPath(DISTLOCK_ROOT).build();
        FencedLock lock = single.obtain("uncontended");
        InterProcessMutex mutex = new InterProcessMutex(shared, CURATOR_ROOT + "/uncontended");
        comparisons.add(interleave(
                "1 thread, uncontended acquire+release",
                new Uncontended(() -> {
                    try (LockHandle handle = lock.tryAcquire(WAIT).orElseThrow()) {
                        // acquire + release only
                    }
                }),
                new Uncontended(() -> lockOnce(mutex))));

        List<CuratorFramework> own = new ArrayList<>();
        List<ZooKeeperLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            own.add(client());
            registries.add(ZooKeeperLockRegistry.builder(own.get(i))
                    .rootPath(DISTLOCK_ROOT)
                    .build());
        }
        ThreadLocal<FencedLock> ownLock = slot(registries, registry -> registry.obtain("contended-n"));
        ThreadLocal<InterProcessMutex> ownMutex =
                slot(own, client -> new InterProcessMutex(client, CURATOR_ROOT + "/contended-n"));
        comparisons.add(interleave(
                THREADS + " clients (one thread each), one key: handoffs",
                new Contended(() -> {
                    try (LockHandle handle = ownLock.get().tryAcquire(WAIT).orElseThrow()) {
                        // handoff
                    }
                }),
                new Contended(() -> lockOnce(ownMutex.get()))));

        ThreadLocal<InterProcessMutex> sameClient =
                ThreadLocal.withInitial(() -> new InterProcessMutex(shared, CURATOR_ROOT + "/contended-1"));
        comparisons.add(interleave(
                THREADS + " threads of 1 client, one key: handoffs",
                new Contended(() -> {
                    try (LockHandle handle =
                            single.obtain("contended-1").tryAcquire(WAIT).orElseThrow()) {
                        // handoff
                    }
                }),
                new Contended(() -> lockOnce(sameClient.get()))));

        registries.forEach(ZooKeeperLockRegistry::close);
        single.close();
        return comparisons;
    }

    /** Warms both up, then runs {@link #ROUNDS} rounds of one slice each, alternating which goes first. */
    private static Comparison interleave(String scenario, Slices distlock, Slices curator) throws Exception {
        distlock.slice(WARMUP, false);
        curator.slice(WARMUP, false);
        ServerRequests distlockRequests = ServerRequests.under(DISTLOCK_ROOT, distlock);
        ServerRequests curatorRequests = ServerRequests.under(CURATOR_ROOT, curator);
        List<Double> roundRatios = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            double d;
            double c;
            if (round % 2 == 0) {
                d = distlock.slice(SLICE, true);
                c = curator.slice(SLICE, true);
            } else {
                c = curator.slice(SLICE, true);
                d = distlock.slice(SLICE, true);
            }
            roundRatios.add(d / c);
        }
        return new Comparison(
                scenario,
                distlock.total(),
                curator.total(),
                roundRatios,
                distlockRequests.perCall(),
                curatorRequests.perCall());
    }

    /** One library's slices of a scenario, added up. */
    private interface Slices {
        /** Runs one slice; returns its ops/s. Counted slices add to {@link #total()}. */
        double slice(Duration length, boolean counted) throws Exception;

        Benchmark.Result total();

        /** Operations run so far, counted or not (each slice starts with an uncounted warm-up). */
        long calls();
    }

    /** Wraps {@code operation} to count every call in {@code calls}. */
    private static Benchmark.Operation counting(AtomicLong calls, Benchmark.Operation operation) {
        return () -> {
            operation.run();
            calls.incrementAndGet();
        };
    }

    /**
     * The reads and writes the server answered under one library's root (ZooKeeper counts them per
     * first path component), from a starting point, per operation of that library since then.
     */
    private record ServerRequests(String namespace, Slices slices, long reads, long writes, long calls) {

        static ServerRequests under(String root, Slices slices) {
            String namespace = root.substring(1);
            return new ServerRequests(
                    namespace, slices, count(namespace, "read"), count(namespace, "write"), slices.calls());
        }

        /** Reads and writes per operation since this starting point. */
        double[] perCall() {
            double calls = slices.calls() - this.calls;
            return new double[] {
                (count(namespace, "read") - reads) / calls, (count(namespace, "write") - writes) / calls
            };
        }

        private static long count(String namespace, String kind) {
            String name = "cnt_" + namespace + "_" + kind + "_per_namespace";
            AtomicLong count = new AtomicLong();
            ServerMetrics.getMetrics().getMetricsProvider().dump((metric, value) -> {
                if (metric.equals(name)) {
                    count.set(((Number) value).longValue());
                }
            });
            return count.get();
        }
    }

    /** One thread, one key; latencies from every counted call. */
    private static final class Uncontended implements Slices {

        private final AtomicLong calls = new AtomicLong();
        private final Benchmark.Operation operation;
        private long operations;
        private double seconds;
        private final List<Benchmark.Result> slices = new ArrayList<>();

        Uncontended(Benchmark.Operation operation) {
            this.operation = counting(calls, operation);
        }

        @Override
        public long calls() {
            return calls.get();
        }

        @Override
        public double slice(Duration length, boolean counted) {
            Benchmark.Result result = Benchmark.uncontended("", SLICE_WARMUP, length, operation);
            if (counted) {
                operations += result.operations();
                seconds += result.operations() / result.opsPerSecond();
                slices.add(result);
            }
            return result.opsPerSecond();
        }

        @Override
        public Benchmark.Result total() {
            return new Benchmark.Result(
                    "",
                    "",
                    operations,
                    operations / seconds,
                    median(slices, Benchmark.Result::p50Micros),
                    median(slices, Benchmark.Result::p99Micros));
        }
    }

    /** {@link #THREADS} threads on one key; handoffs per second. */
    private static final class Contended implements Slices {

        private final AtomicLong calls = new AtomicLong();
        private final Benchmark.Operation operation;
        private long operations;
        private double seconds;

        Contended(Benchmark.Operation operation) {
            this.operation = counting(calls, operation);
        }

        @Override
        public long calls() {
            return calls.get();
        }

        @Override
        public double slice(Duration length, boolean counted) throws InterruptedException {
            Benchmark.Result result = Benchmark.contended("", THREADS, SLICE_WARMUP, length, operation);
            if (counted) {
                operations += result.operations();
                seconds += result.operations() / result.opsPerSecond();
            }
            return result.opsPerSecond();
        }

        @Override
        public Benchmark.Result total() {
            return new Benchmark.Result("", "", operations, operations / seconds, Double.NaN, Double.NaN);
        }
    }

    /**
     * @param distlockRequests the server's reads and writes per distlock acquire+release
     * @param curatorRequests the same for Curator
     */
    private record Comparison(
            String scenario,
            Benchmark.Result distlock,
            Benchmark.Result curator,
            List<Double> roundRatios,
            double[] distlockRequests,
            double[] curatorRequests) {

        double ratio() {
            return distlock.opsPerSecond() / curator.opsPerSecond();
        }

        /** The median of the per-round ratios: a stall that hits one slice moves it little. */
        double medianRatio() {
            return Benchmark.median(
                    roundRatios.stream().mapToDouble(Double::doubleValue).toArray());
        }
    }

    private static double median(List<Benchmark.Result> results, Function<Benchmark.Result, Double> value) {
        List<Double> sorted = results.stream().map(value).sorted().toList();
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }

    private static void write(Path file, List<Comparison> comparisons, String loadBefore, String loadAfter)
            throws IOException {
        StringBuilder text = new StringBuilder()
                .append("# ZooKeeper backend benchmark\n\n")
                .append("Measured ")
                .append(Instant.now())
                .append(" on ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ")
                .append(System.getProperty("java.version"))
                .append("; ZooKeeper ")
                .append(Version.getFullVersion().split("-")[0])
                .append(", Curator ")
                .append(CuratorFramework.class.getPackage().getImplementationVersion())
                .append(". Load average (1, 5, 15 min) ")
                .append(loadBefore)
                .append(" before the run, ")
                .append(loadAfter)
                .append(" after it (the benchmark's own threads count in it).\n\n")
                .append(SETUP)
                .append("\n\n| scenario | distlock ops/s | Curator ops/s | distlock / Curator, median of rounds"
                        + " | distlock / Curator, totals | per round |\n")
                .append("|---|---:|---:|---:|---:|---|\n");
        for (Comparison comparison : comparisons) {
            text.append(String.format(
                    Locale.ROOT,
                    "| %s | %,.0f | %,.0f | **%.2f×** | %.2f× | %s |%n",
                    comparison.scenario(),
                    comparison.distlock().opsPerSecond(),
                    comparison.curator().opsPerSecond(),
                    comparison.medianRatio(),
                    comparison.ratio(),
                    String.join(
                            " ",
                            comparison.roundRatios().stream()
                                    .map(r -> String.format(Locale.ROOT, "%.2f", r))
                                    .toList())));
        }
        text.append("\nServer requests per acquire+release (reads + writes, counted by the server under each"
                + " library's root over the measured rounds, slice warm-ups included):\n\n");
        for (Comparison comparison : comparisons) {
            text.append(String.format(
                    Locale.ROOT,
                    "- %s: distlock %.2f + %.2f, Curator %.2f + %.2f%n",
                    comparison.scenario(),
                    comparison.distlockRequests()[0],
                    comparison.distlockRequests()[1],
                    comparison.curatorRequests()[0],
                    comparison.curatorRequests()[1]));
        }
        Comparison single = comparisons.get(0);
        text.append(String.format(
                Locale.ROOT,
                "%n1 thread, uncontended: distlock %,d operations, p50 %,.0f µs, p99 %,.0f µs; Curator %,d operations,"
                        + " p50 %,.0f µs, p99 %,.0f µs (medians over the rounds).%n",
                single.distlock().operations(),
                single.distlock().p50Micros(),
                single.distlock().p99Micros(),
                single.curator().operations(),
                single.curator().p50Micros(),
                single.curator().p99Micros()));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text);
        System.out.println(text);
    }

    private static final String SETUP =
            "One in-process ZooKeeper server (curator-test `TestingServer`, default settings, so every"
                    + " write is fsynced to a temp directory) in the benchmark's JVM, shared by both libraries. Each scenario: a"
                    + " warm-up of " + WARMUP.toSeconds() + " s per library, then " + ROUNDS + " rounds of one "
                    + SLICE.toMillis()
                    + " ms slice per library, the order alternating every round. The headline ratio is"
                    + " the median of the per-round ratios (a disk or CPU stall from other work on the machine that hits one"
                    + " slice moves it little); the ratio of the totals and every round's ratio stand beside it.\n\n"
                    + "- *distlock*: `ZooKeeperLockRegistry`, `tryAcquire` + close. An acquisition sends the create of its"
                    + " protected ephemeral-sequential node and the read of the key's children back to back (one round trip);"
                    + " a waiter watches its predecessor and the node ahead of that (their reads sent back to back),"
                    + " reads the line again when the latter goes, while its predecessor holds, and holds as soon as"
                    + " its predecessor is reported deleted, without another read; a release is one delete, whose"
                    + " answer it waits for.\n"
                    + "- *Curator*: `InterProcessMutex` (create, then read of the children, then a watch; a waiter re-reads"
                    + " the children when woken; a release is one delete).\n"
                    + "- *" + THREADS + " clients*: each thread has its own client and registry or mutex (standing for "
                    + THREADS + " JVMs), so every handoff goes through the server. *" + THREADS
                    + " threads of 1 client*:"
                    + " one shared client; distlock's registry queues the threads locally, Curator has one mutex per thread.\n"
                    + "- The server, both libraries and the benchmark threads share the machine's cores; other work on the"
                    + " machine moves absolute figures, so compare the ratios, which come from interleaved slices.";

    private static void lockOnce(InterProcessMutex mutex) throws Exception {
        if (!mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("InterProcessMutex not acquired within " + WAIT);
        }
        mutex.release();
    }

    /** Gives each benchmark thread its own element of {@code items}, mapped once. */
    private static <T, R> ThreadLocal<R> slot(List<T> items, Function<T, R> map) {
        AtomicInteger next = new AtomicInteger();
        return ThreadLocal.withInitial(() -> map.apply(items.get(next.getAndIncrement() % items.size())));
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
