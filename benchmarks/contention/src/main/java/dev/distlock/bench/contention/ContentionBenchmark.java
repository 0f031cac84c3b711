package dev.distlock.bench.contention;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Contended paths on Redis, ZooKeeper, etcd and PostgreSQL. Arguments: the directory to write to,
 * then the parts to run ({@code read-write}, {@code many-waiters}, {@code leader}, all three by default; {@code
 * overrun}, calls under CPU load, plain locks beside semaphores: {@link OverrunUnderLoad}). Writes {@code
 * contention-read-write.md}, {@code contention-many-waiters.md}, {@code contention-leader.md} and a summary of the
 * ratios, {@code contention-ratios.md}, there; {@code benchmarks/run.sh
 * contention} joins them with the Redis hand-over tails into {@code benchmarks/results/contention.md}.
 * Durations and widths: {@link Settings}.
 */
public final class ContentionBenchmark {

    private static final List<String> PARTS = List.of("read-write", "many-waiters", "leader", "overrun");

    /** What a run without parts named measures; {@code overrun} loads the CPU on purpose and runs on its own. */
    private static final List<String> DEFAULT_PARTS = PARTS.subList(0, 3);

    private ContentionBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException(
                    "usage: ContentionBenchmark <output directory> [part...], parts " + PARTS);
        }
        Path out = Path.of(args[0]);
        List<String> parts = args.length > 1 ? List.of(args).subList(1, args.length) : DEFAULT_PARTS;
        parts.forEach(part -> {
            if (!PARTS.contains(part)) {
                throw new IllegalArgumentException("unknown part " + part + "; choose from " + PARTS);
            }
        });
        Settings settings = Settings.fromSystemProperties();
        Map<String, String> servers = new LinkedHashMap<>();
        List<ReadWriteMix.Result> readWrite = new ArrayList<>();
        List<ManyWaiters.Outcome> manyWaiters = new ArrayList<>();
        List<LeaderHandOver.Result> leaders = new ArrayList<>();
        List<OverrunUnderLoad.Result> overruns = new ArrayList<>();
        for (String name : settings.backends()) {
            System.err.println("== " + name);
            try (Backend backend = open(name)) {
                servers.put(name, backend.describe());
                if (parts.contains("read-write")) {
                    readWrite.add(backend.readWrite(settings));
                }
                if (parts.contains("many-waiters")) {
                    manyWaiters.addAll(backend.manyWaiters(settings));
                }
                if (parts.contains("leader")) {
                    leaders.add(backend.leaderHandOver());
                }
                if (parts.contains("overrun")) {
                    try (Closer closer = new Closer()) {
                        List<dev.distlock.core.LockRegistry> registries = new ArrayList<>();
                        for (int i = 0; i < OverrunUnderLoad.REGISTRIES; i++) {
                            registries.add(backend.newRegistry(closer));
                        }
                        overruns.add(OverrunUnderLoad.measure(name, registries, settings));
                    }
                }
            }
        }
        Files.createDirectories(out);
        write(out.resolve("contention-ratios.md"), ContentionReport.ratios(readWrite, manyWaiters, leaders));
        if (parts.contains("read-write")) {
            write(out.resolve("contention-read-write.md"), ContentionReport.readWrite(settings, servers, readWrite));
        }
        if (parts.contains("many-waiters")) {
            write(
                    out.resolve("contention-many-waiters.md"),
                    ContentionReport.manyWaiters(settings, servers, manyWaiters));
        }
        if (parts.contains("leader")) {
            write(out.resolve("contention-leader.md"), ContentionReport.leaders(servers, leaders));
        }
        if (parts.contains("overrun")) {
            write(out.resolve("contention-overrun.md"), OverrunUnderLoad.report(settings, servers, overruns));
        }
        System.exit(0); // client libraries leave non-daemon threads behind
    }

    private static Backend open(String name) throws Exception {
        return switch (name) {
            case "redis" -> new RedisContention();
            case "zookeeper" -> new ZooKeeperContention();
            case "etcd" -> new EtcdContention();
            case "postgresql" -> new PostgresContention();
            default -> throw new IllegalArgumentException("unknown backend " + name);
        };
    }

    private static void write(Path file, String text) throws Exception {
        Files.writeString(file, text);
        System.out.println(text);
    }
}
