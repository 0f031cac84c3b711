package dev.distlock.bench.redis;

import dev.distlock.bench.Benchmark;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/** The Markdown page of one Redis benchmark run. */
final class Report {

    private Report() {}

    static String markdown(
            Instant when,
            String server,
            int rounds,
            Duration slice,
            Duration warmUp,
            int handOverRounds,
            int handOverSamples,
            int handOverWarmUp,
            Map<String, double[]> single,
            Map<String, double[]> eight,
            Map<String, double[]> serverMicros,
            Map<String, long[]> handOver) {
        StringBuilder md = new StringBuilder();
        md.append("# Redis backend benchmark\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Measured %s on %d cores, Java %s; %s on loopback (no persistence), started by the benchmark."
                        + " Lettuce %s, Spring Integration %s, Redisson %s.%n%n",
                when,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                server,
                version(io.lettuce.core.RedisClient.class),
                version(org.springframework.integration.redis.util.RedisLockRegistry.class),
                version(org.redisson.Redisson.class)));
        md.append(String.format(
                Locale.ROOT,
                "Throughput: %d rounds, in each round every library runs %s s with 1 thread and %s s with 8"
                        + " threads (each thread on a key of its own), the libraries' order rotating from round"
                        + " to round; %s s of warm-up per library and thread count before. Figures are the mean over"
                        + " the rounds, ratios are to the raw Lettuce baseline of the same run.%n%n",
                rounds,
                seconds(slice),
                seconds(slice),
                seconds(warmUp)));
        md.append("- *" + Contenders.RAW + "*: one Lettuce connection, `SET key token NX PX 30000` then"
                + " `EVALSHA` of a get-compare-delete script: two round trips, no fencing token, no reentrancy,"
                + " no renewal. Lettuce's default client options arm a timeout for every command, as Spring's"
                + " connection factory does for distlock's.\n");
        md.append("- *distlock*: `RedisLockRegistry` (watchdog lease 30 s) over a `LettuceConnectionFactory`,"
                + " `lock.acquire()` + `handle.close()`: one script round trip each (acquire: `TIME` and"
                + " `SET NX PX` of owner, token and holder; release: `GET`, compare, `DEL`), with a fencing token,"
                + " the holder's description for `holderOf`, and each hold's lease kept by the watchdog.\n");
        if (single.containsKey(Contenders.ACKNOWLEDGED)) {
            md.append("- *distlock, 1 replica acknowledges*: the same, built with `replicaAcknowledgements(1, 1s)`:"
                    + " after each grant a `WAIT 1 1000` on the lock connection, so a grant counts once the"
                    + " replica has it. The server has one replica for every library.\n");
        }
        md.append("- *Spring Integration*: `RedisLockRegistry` (SPIN_LOCK, 60 s expiry), `lock()` + `unlock()`.\n");
        md.append("- *Redisson*: `RLock` with its defaults (watchdog 30 s), `lock()` + `unlock()`.\n\n");
        md.append("| library | 1 thread ops/s | × raw | × raw, round median | 8 threads ops/s | × raw |"
                + " × raw, round median | server µs per op |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        double raw1 = mean(single.get(Contenders.RAW));
        double raw8 = mean(eight.get(Contenders.RAW));
        single.forEach((name, values) -> md.append(String.format(
                Locale.ROOT,
                "| %s | %,.0f | %.2f | %.2f | %,.0f | %.2f | %.2f | %.1f |%n",
                name,
                mean(values),
                mean(values) / raw1,
                Benchmark.medianRatio(values, single.get(Contenders.RAW)),
                mean(eight.get(name)),
                mean(eight.get(name)) / raw8,
                Benchmark.medianRatio(eight.get(name), eight.get(Contenders.RAW)),
                serverMicrosPerOperation(serverMicros.get(name), eight.get(name), slice))));
        md.append("\n*× raw* divides the means over the rounds; *× raw, round median* is the median over the"
                + " rounds of each round's ratio to the baseline's figure of that round, which a burst of load"
                + " on the shared machine during one library's slice moves less. *Server µs per op* is the CPU"
                + " time of redis-server's main thread (`INFO cpu`, read before and after each 8-thread slice) per"
                + " acquire+release: reading the requests, running the commands and scripts, writing the replies."
                + " It is what the library costs the server, and far steadier than throughput on shared cores.\n\n");
        md.append("Per round (ops/s, 1 thread / 8 threads):\n\n");
        single.forEach((name, values) -> {
            md.append("- ").append(name).append(':');
            for (int round = 0; round < values.length; round++) {
                md.append(String.format(Locale.ROOT, " %,.0f / %,.0f", values[round], eight.get(name)[round]));
                md.append(round + 1 < values.length ? ";" : "\n");
            }
        });
        if (!handOver.isEmpty()) {
            md.append('\n').append(handOverSection(handOverRounds, handOverSamples, handOverWarmUp, handOver));
        }
        md.append("\nTargets (issue 12): distlock ≥ 0.92× raw with 1 thread, ≥ 0.95× raw with 8 threads,"
                + " hand-over p50 ≤ 1 ms and p99 ≤ 5 ms. The 2 cores are shared with the server and with other"
                + " builds; compare figures of one run only.\n");
        return md.toString();
    }

    /** A page with the hand-over latencies alone ({@code -Dparts=handover}). */
    static String handOversOnly(
            Instant when,
            String server,
            int handOverRounds,
            int handOverSamples,
            int handOverWarmUp,
            Map<String, long[]> handOver) {
        return String.format(
                        Locale.ROOT,
                        "# Redis hand-over latency%n%nMeasured %s on %d cores, Java %s; %s on loopback (no"
                                + " persistence), started by the benchmark.%n%n",
                        when,
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        server)
                + handOverSection(handOverRounds, handOverSamples, handOverWarmUp, handOver);
    }

    private static String handOverSection(
            int handOverRounds, int handOverSamples, int handOverWarmUp, Map<String, long[]> handOver) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "Hand-over: a holder releases in one client, a waiter blocked in `lock()`/`acquire()` in"
                        + " another client (separate connection factory or client, so separate connections; one"
                        + " JVM) gets the key; the time from the release call to the waiter's acquire returning."
                        + " Each library's two clients are opened once and make %d hand-overs not counted (the"
                        + " first wait of a client opens its subscription, and the first runs of the code are"
                        + " interpreted); then %d rounds of %d samples, libraries interleaved.%n%n",
                handOverWarmUp,
                handOverRounds,
                handOverSamples));
        md.append("| library | p50 µs | p90 µs | p99 µs | max µs | samples |\n|---|---:|---:|---:|---:|---:|\n");
        handOver.forEach((name, sorted) -> md.append(String.format(
                Locale.ROOT,
                "| %s | %,d | %,d | %,d | %,d | %d |%n",
                name,
                Measurements.percentile(sorted, 0.50),
                Measurements.percentile(sorted, 0.90),
                Measurements.percentile(sorted, 0.99),
                sorted[sorted.length - 1],
                sorted.length)));
        long[] spin = handOver.get(Contenders.RAW + " (busy spin)");
        long[] distlock = handOver.get("distlock");
        if (spin != null && distlock != null) {
            md.append(String.format(
                    Locale.ROOT,
                    "%ndistlock ÷ busy spin: p50 %.2f×, p99 **%.2f×** (%,d µs ÷ %,d µs).%n",
                    ratio(distlock, spin, 0.50),
                    ratio(distlock, spin, 0.99),
                    Measurements.percentile(distlock, 0.99),
                    Measurements.percentile(spin, 0.99)));
        }
        return md.toString();
    }

    private static double ratio(long[] sorted, long[] baseline, double percentile) {
        return (double) Measurements.percentile(sorted, percentile)
                / Math.max(1, Measurements.percentile(baseline, percentile));
    }

    private static String seconds(Duration duration) {
        return java.math.BigDecimal.valueOf(duration.toMillis(), 3)
                .stripTrailingZeros()
                .toPlainString();
    }

    /** Server CPU summed over the rounds, over the operations of those rounds (each a slice at its rate). */
    private static double serverMicrosPerOperation(double[] micros, double[] opsPerSecond, Duration slice) {
        double operations = Arrays.stream(opsPerSecond).sum() * slice.toNanos() / 1e9;
        return Arrays.stream(micros).sum() / Math.max(1, operations);
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    private static String version(Class<?> type) {
        String version = type.getPackage().getImplementationVersion();
        return version == null ? "?" : version;
    }
}
