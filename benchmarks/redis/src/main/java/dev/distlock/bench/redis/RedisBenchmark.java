package dev.distlock.bench.redis;

import dev.distlock.contract.servers.RedisProcesses;
import dev.distlock.redis.RedisServers;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * distlock's Redis backend beside the raw Lettuce baseline, Spring Integration's
 * RedisLockRegistry and Redisson, in one run with interleaved rounds against one redis-server
 * this class starts (no persistence), or the one at REDIS_URL. Argument: the Markdown file to
 * write. Rows: 1 thread acquire+release, 8 threads on keys of their own, and the hand-over from
 * a release in one client to the acquire of a waiter in another.
 */
public final class RedisBenchmark {

    /**
     * Many short rounds: the shared machine's capacity drifts by tens of percent over seconds, and
     * slices that take turns every half second see nearly the same machine.
     */
    private static final int ROUNDS = Integer.getInteger("rounds", 40);

    private static final Duration SLICE = Duration.ofMillis(Long.getLong("sliceMillis", 500));
    private static final int HANDOVER_ROUNDS = Integer.getInteger("handoverRounds", 20);
    private static final int HANDOVER_WARM_UP = 50;
    private static final Duration WARM_UP = Duration.ofSeconds(3);
    private static final int HANDOVER_SAMPLES = Integer.getInteger("handoverSamples", 100);

    /**
     * -Dparts=handover runs only the hand-over latencies (with -Dlibraries=distlock: distlock beside
     * the busy spin alone), -Dparts=throughput only the throughput rounds; both by default.
     */
    private static final List<String> PARTS = java.util.Arrays.stream(
                    System.getProperty("parts", "throughput,handover").split(","))
            .map(String::trim)
            .toList();

    /** True when the benchmark started its server with a replica: then the replica-acknowledgement row runs. */
    private static boolean withReplica;

    private RedisBenchmark() {}

    /** Waits until the master reports its replica online. */
    private static void awaitReplica(int port) throws Exception {
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!RedisServers.cli(port, "INFO", "replication").contains("connected_slaves:1")
                || !RedisServers.cli(port, "INFO", "replication").contains("state=online")) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("the replica did not come online within 30 s");
            }
            Thread.sleep(100);
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "benchmarks/results/redis.md");
        String url = System.getenv("REDIS_URL");
        RedisServers servers = null;
        String host = "127.0.0.1";
        int port;
        if (url != null && !url.isBlank()) {
            URI uri = URI.create(url);
            host = uri.getHost();
            port = uri.getPort() > 0 ? uri.getPort() : 6379;
        } else {
            servers = new RedisServers();
            port = servers.start().port();
            if (PARTS.contains("throughput")) {
                // One replica, so that the replica-acknowledgement row has one to wait for; every
                // library pays the same replication stream.
                servers.start(List.of("--replicaof", host, Integer.toString(port)));
                awaitReplica(port);
                withReplica = true;
            }
        }
        try {
            Contenders contenders = new Contenders(host, port);
            String report;
            try (ServerTime serverTime = new ServerTime(host, port)) {
                String server = servers == null
                        ? url
                        : serverVersion() + (withReplica ? " with one replica (`replicaof`)" : "");
                report = PARTS.contains("throughput")
                        ? run(contenders, serverTime, server)
                        : Report.handOversOnly(
                                Instant.now(),
                                server,
                                HANDOVER_ROUNDS,
                                HANDOVER_SAMPLES,
                                HANDOVER_WARM_UP,
                                handOvers(contenders));
            }
            Files.writeString(out, report);
            System.out.println(report);
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
        System.exit(0);
    }

    private static String run(Contenders contenders, ServerTime serverTime, String server) throws Exception {
        Map<String, Supplier<Contender>> libraries = new LinkedHashMap<>();
        libraries.put(Contenders.RAW, contenders::raw);
        libraries.put("distlock", contenders::distlock);
        if (withReplica) {
            libraries.put("distlock acknowledged", () -> contenders.distlock(1));
        }
        if (PreviousDistlock.configured()) {
            libraries.put("distlock before", contenders::previous);
        }
        libraries.put("Spring Integration", () -> contenders.springIntegration(false));
        libraries.put("Redisson", contenders::redisson);
        List<Contender> open = new ArrayList<>();
        libraries.forEach((name, factory) -> {
            if (selected(name)) {
                open.add(factory.get());
            }
        });
        Map<String, double[]> single = new LinkedHashMap<>();
        Map<String, double[]> eight = new LinkedHashMap<>();
        Map<String, double[]> serverMicros = new LinkedHashMap<>(); // server CPU of each 8-thread slice
        open.forEach(c -> {
            single.put(c.name(), new double[ROUNDS]);
            eight.put(c.name(), new double[ROUNDS]);
            serverMicros.put(c.name(), new double[ROUNDS]);
        });
        try {
            for (Contender c : open) { // warm-up until the compiler settles, not counted
                Measurements.throughput(c, 1, WARM_UP, "warm:" + open.indexOf(c));
                Measurements.throughput(c, 8, WARM_UP, "warm:" + open.indexOf(c));
            }
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < open.size(); i++) {
                    Contender c = open.get((i + round) % open.size());
                    String keys = "bench:" + open.indexOf(c);
                    single.get(c.name())[round] = Measurements.throughput(c, 1, SLICE, keys);
                    long before = serverTime.micros();
                    eight.get(c.name())[round] = Measurements.throughput(c, 8, SLICE, keys);
                    serverMicros.get(c.name())[round] = serverTime.micros() - before;
                    System.err.printf(
                            Locale.ROOT,
                            "  %s: %.0f / %.0f ops/s%n",
                            c.name(),
                            single.get(c.name())[round],
                            eight.get(c.name())[round]);
                }
                System.err.printf(Locale.ROOT, "throughput round %d of %d done%n", round + 1, ROUNDS);
            }
        } finally {
            open.forEach(Contender::close);
        }
        Map<String, long[]> handOver = PARTS.contains("handover") ? handOvers(contenders) : Map.of();
        return Report.markdown(
                Instant.now(),
                server,
                ROUNDS,
                SLICE,
                WARM_UP,
                HANDOVER_ROUNDS,
                HANDOVER_SAMPLES,
                HANDOVER_WARM_UP,
                single,
                eight,
                serverMicros,
                handOver);
    }

    /**
     * Hand-over latency per library; each side its own client and connections, opened once and
     * warmed up, so the rounds measure hand-overs between running clients, not a client's first
     * connection or the first run of its code; rounds interleaved.
     */
    private static Map<String, long[]> handOvers(Contenders contenders) throws Exception {
        Map<String, Supplier<Contender>> libraries = new LinkedHashMap<>();
        libraries.put(Contenders.RAW + " (busy spin)", contenders::raw);
        libraries.put("distlock", contenders::distlock);
        if (PreviousDistlock.configured()) {
            libraries.put("distlock before", contenders::previous);
        }
        libraries.put("Spring Integration (PUB_SUB_LOCK)", () -> contenders.springIntegration(true));
        libraries.put("Redisson", contenders::redisson);
        Map<String, List<long[]>> samples = new LinkedHashMap<>();
        Map<String, Contender[]> pairs = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(libraries.keySet());
        names.removeIf(name -> !selected(name));
        try {
            for (String name : names) {
                Contender[] pair = {libraries.get(name).get(), null};
                pairs.put(name, pair);
                pair[1] = libraries.get(name).get();
                String key = "handover:" + names.indexOf(name);
                Measurements.handOver(pair[0], pair[1], key, HANDOVER_WARM_UP);
                samples.put(name, new ArrayList<>());
            }
            for (int round = 0; round < HANDOVER_ROUNDS; round++) {
                for (int i = 0; i < names.size(); i++) {
                    String name = names.get((i + round) % names.size());
                    Contender[] pair = pairs.get(name);
                    String key = "handover:" + names.indexOf(name);
                    samples.get(name).add(Measurements.handOver(pair[0], pair[1], key, HANDOVER_SAMPLES));
                }
                System.err.printf(Locale.ROOT, "hand-over round %d of %d done%n", round + 1, HANDOVER_ROUNDS);
            }
        } finally {
            pairs.values().forEach(pair -> {
                for (Contender side : pair) {
                    if (side != null) {
                        side.close();
                    }
                }
            });
        }
        Map<String, long[]> sorted = new LinkedHashMap<>();
        samples.forEach((name, parts) -> sorted.put(name, Measurements.sorted(parts)));
        return sorted;
    }

    /** -Dlibraries=raw,distlock measures only the libraries whose names start with one of these (the baseline always). */
    private static boolean selected(String name) {
        String only = System.getProperty("libraries");
        return only == null
                || name.startsWith(Contenders.RAW)
                || java.util.Arrays.stream(only.split(",")).anyMatch(prefix -> name.startsWith(prefix.trim()));
    }

    private static String serverVersion() {
        return RedisProcesses.version();
    }
}
