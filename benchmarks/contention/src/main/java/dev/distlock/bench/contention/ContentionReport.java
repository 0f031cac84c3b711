package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark;
import dev.distlock.core.DurationText;
import dev.distlock.core.RegistryOptions;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** The Markdown pages of a contention run: one for the read/write mix, one for many waiters. */
final class ContentionReport {

    private ContentionReport() {}

    static String readWrite(Settings settings, Map<String, String> servers, List<ReadWriteMix.Result> results) {
        StringBuilder md = new StringBuilder("# Read/write mix: 8 readers and 1 writer on one key\n\n");
        md.append(settings.describe())
                .append(". Readers alternate between two clients (standing for two JVMs), the writer is on the"
                        + " second; every thread loops acquire+release, holding nothing in between. distlock's"
                        + " registries have their backend's default writer grace (how long a waiting writer lets new"
                        + " readers in before they queue behind it): "
                        + DurationText.format(RegistryOptions.DEFAULT_WRITER_GRACE)
                        + " on Redis and PostgreSQL, 0 on ZooKeeper and etcd. Rates are"
                        + " medians over the rounds, ratios the median of the per-round ratios. *Longest wait*:"
                        + " the longest acquire+release of any reader, and of the writer, in any round; a call"
                        + " still waiting when a window ends counts with the time it had waited, so a starved"
                        + " side shows as waits as long as the window.\n\n");
        servers(md, servers);
        List<ReadWriteMix.VersusPeer> peers = results.stream()
                .filter(ReadWriteMix.VersusPeer.class::isInstance)
                .map(ReadWriteMix.VersusPeer.class::cast)
                .toList();
        List<ReadWriteMix.Alone> alone = results.stream()
                .filter(ReadWriteMix.Alone.class::isInstance)
                .map(ReadWriteMix.Alone.class::cast)
                .toList();
        if (!peers.isEmpty()) {
            md.append("## Beside the peer on the same server (the order flips every round)\n\n")
                    .append("| backend | peer | distlock reads/s | peer reads/s | reads × peer | distlock writes/s"
                            + " | peer writes/s | writes × peer | distlock longest wait, reader / writer ms"
                            + " | peer longest wait, reader / writer ms |\n")
                    .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (ReadWriteMix.VersusPeer result : peers) {
                double[] ourReads = values(result.ours(), ReadWriteMix.Slice::reads);
                double[] theirReads = values(result.theirs(), ReadWriteMix.Slice::reads);
                double[] ourWrites = values(result.ours(), ReadWriteMix.Slice::writes);
                double[] theirWrites = values(result.theirs(), ReadWriteMix.Slice::writes);
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %,.0f | %,.0f | **%s** | %,.1f | %,.1f | **%s** | %s | %s |%n",
                        result.backend(),
                        result.peer(),
                        Benchmark.median(ourReads),
                        Benchmark.median(theirReads),
                        ratio(Benchmark.medianRatio(ourReads, theirReads)),
                        Benchmark.median(ourWrites),
                        Benchmark.median(theirWrites),
                        ratio(Benchmark.medianRatio(ourWrites, theirWrites)),
                        longest(result.ours()),
                        longest(result.theirs())));
            }
            md.append("\n*× peer* above 1: distlock is faster.\n\n");
        }
        if (!alone.isEmpty()) {
            md.append("## distlock alone, against its own plain lock and single-thread rate (rotating order)\n\n")
                    .append("| backend | 1-thread read acquire+release/s | reads/s in the mix | mix reads ÷ 1-thread"
                            + " reads | plain lock hand-overs/s, 2 registries | 1-thread write acquire+release/s |"
                            + " writes/s in the mix | mix writes ÷ plain hand-overs | mix writes ÷ 1-thread writes |"
                            + " longest wait, reader / writer ms |\n")
                    .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (ReadWriteMix.Alone result : alone) {
                double[] reads = values(result.mix(), ReadWriteMix.Slice::reads);
                double[] writes = values(result.mix(), ReadWriteMix.Slice::writes);
                double[] single = doubles(result.singleReads());
                double[] singleWrites = doubles(result.singleWrites());
                double[] plain = doubles(result.plainHandOvers());
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %,.0f | %,.0f | **%s** | %,.0f | %,.0f | %,.1f | **%s** | **%s** | %s |%n",
                        result.backend(),
                        Benchmark.median(single),
                        Benchmark.median(reads),
                        ratio(Benchmark.medianRatio(reads, single)),
                        Benchmark.median(plain),
                        Benchmark.median(singleWrites),
                        Benchmark.median(writes),
                        ratio(Benchmark.medianRatio(writes, plain)),
                        ratio(Benchmark.medianRatio(writes, singleWrites)),
                        longest(result.mix())));
            }
            md.append("\nThe single-thread read and write are one registry's read or write acquire+release of an idle"
                    + " key; the mix has one writer thread, so its writes/s cannot exceed the single-thread write rate."
                    + " The plain lock's hand-overs are two registries, one thread each, taking turns on one key.\n\n");
        }
        md.append("Per round (reads/s / writes/s in the mix):\n\n");
        for (ReadWriteMix.VersusPeer result : peers) {
            perRound(md, result.backend() + ", distlock", result.ours());
            perRound(md, result.backend() + ", " + result.peer(), result.theirs());
        }
        for (ReadWriteMix.Alone result : alone) {
            perRound(md, result.backend() + ", distlock", result.mix());
        }
        return md.toString();
    }

    static String manyWaiters(Settings settings, Map<String, String> servers, List<ManyWaiters.Outcome> outcomes) {
        StringBuilder md = new StringBuilder(
                String.format(Locale.ROOT, "# Many waiters: %d clients on one key%n%n", settings.waiters()));
        md.append(settings.describe())
                .append(". Each client is a thread with a client and registry (or peer lock) of its own, standing"
                        + " for a JVM, looping acquire+release of one key, holding nothing in between: each"
                        + " completed acquire+release is a hand-over. Distlock and its peer take turns on the same"
                        + " server, the order flipping every round. Hand-overs/s is the median over the rounds,"
                        + " *× peer* the median of the per-round ratios (above 1: distlock is faster). The server's"
                        + " counters are read before and after each measured window; figures per hand-over sum"
                        + " the windows of all rounds.\n\n");
        servers(md, servers);
        md.append("| backend | library | hand-overs/s | × peer | server requests per hand-over | what the server ran,"
                        + " per hand-over"
                        + " | wake-ups per hand-over | server CPU µs per hand-over | longest wait ms |\n")
                .append("|---|---|---:|---:|---:|---|---:|---:|---:|\n");
        for (ManyWaiters.Outcome outcome : outcomes) {
            ManyWaiters.Outcome peer = peerOf(outcome, outcomes);
            ServerCounters.Usage usage = outcome.usage();
            double handOvers = Math.max(1, outcome.handOvers());
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,.0f | %s | %s | %s | %s | %s | %,.0f |%n",
                    outcome.backend(),
                    outcome.subject().library(),
                    Benchmark.median(outcome.rates()),
                    peer == null ? "–" : "**" + ratio(Benchmark.medianRatio(outcome.rates(), peer.rates())) + "**",
                    perHandOver(usage.requestsFromClients(outcome.subject().counters()), handOvers),
                    breakdown(usage.requests(), handOvers),
                    perHandOver(usage.wakeUps(), handOvers),
                    perHandOver(usage.cpuMicros(), handOvers),
                    outcome.longestMicros() / 1e3));
        }
        md.append("\nWhat is counted:\n\n");
        outcomes.stream()
                .collect(Collectors.groupingBy(
                        ManyWaiters.Outcome::backend, java.util.LinkedHashMap::new, Collectors.toList()))
                .forEach((backend, ofBackend) -> {
                    ServerCounters counters = ofBackend.get(0).subject().counters();
                    md.append("- ")
                            .append(backend)
                            .append(": requests are ")
                            .append(counters.requests())
                            .append("; wake-ups are ")
                            .append(counters.wakeUps())
                            .append("; CPU is ")
                            .append(counters.cpu())
                            .append(". ");
                    ofBackend.forEach(outcome -> md.append(outcome.subject().library())
                            .append(": ")
                            .append(outcome.subject().setup())
                            .append(". "));
                    md.append('\n');
                });
        md.append("\nPer round (hand-overs/s):\n\n");
        for (ManyWaiters.Outcome outcome : outcomes) {
            md.append("- ")
                    .append(outcome.backend())
                    .append(", ")
                    .append(outcome.subject().library())
                    .append(':');
            double[] rates = outcome.rates();
            for (int round = 0; round < rates.length; round++) {
                md.append(String.format(Locale.ROOT, " %,.0f", rates[round]))
                        .append(round + 1 < rates.length ? ";" : "\n");
            }
        }
        return md.toString();
    }

    /** One line per comparison, for the head of the joined page. */
    static String ratios(
            List<ReadWriteMix.Result> readWrite,
            List<ManyWaiters.Outcome> manyWaiters,
            List<LeaderHandOver.Result> leaders) {
        StringBuilder md = new StringBuilder();
        for (ReadWriteMix.Result result : readWrite) {
            if (result instanceof ReadWriteMix.VersusPeer peer) {
                md.append(String.format(
                        Locale.ROOT,
                        "- read/write mix, %s, distlock ÷ %s: reads/s %s, writes/s %s%n",
                        peer.backend(),
                        peer.peer(),
                        ratio(Benchmark.medianRatio(
                                values(peer.ours(), ReadWriteMix.Slice::reads),
                                values(peer.theirs(), ReadWriteMix.Slice::reads))),
                        ratio(Benchmark.medianRatio(
                                values(peer.ours(), ReadWriteMix.Slice::writes),
                                values(peer.theirs(), ReadWriteMix.Slice::writes)))));
            } else if (result instanceof ReadWriteMix.Alone alone) {
                md.append(String.format(
                        Locale.ROOT,
                        "- read/write mix, %s: reads/s in the mix %s the 1-thread read rate, writes/s %s the"
                                + " plain lock's hand-over rate and %s the 1-thread write rate%n",
                        alone.backend(),
                        ratio(Benchmark.medianRatio(
                                values(alone.mix(), ReadWriteMix.Slice::reads), doubles(alone.singleReads()))),
                        ratio(Benchmark.medianRatio(
                                values(alone.mix(), ReadWriteMix.Slice::writes), doubles(alone.plainHandOvers()))),
                        ratio(Benchmark.medianRatio(
                                values(alone.mix(), ReadWriteMix.Slice::writes), doubles(alone.singleWrites())))));
            }
        }
        for (ManyWaiters.Outcome outcome : manyWaiters) {
            ManyWaiters.Outcome peer = peerOf(outcome, manyWaiters);
            if (!outcome.subject().library().equals("distlock")) {
                continue;
            }
            double handOvers = Math.max(1, outcome.handOvers());
            md.append(String.format(
                    Locale.ROOT,
                    "- %d waiters, %s: %,.0f hand-overs/s%s; per hand-over %s server requests, %s wake-ups",
                    outcome.subject().clients().size(),
                    outcome.backend(),
                    Benchmark.median(outcome.rates()),
                    peer == null
                            ? ""
                            : ", " + ratio(Benchmark.medianRatio(outcome.rates(), peer.rates())) + " the rate of "
                                    + peer.subject().library(),
                    perHandOver(
                            outcome.usage()
                                    .requestsFromClients(outcome.subject().counters()),
                            handOvers),
                    perHandOver(outcome.usage().wakeUps(), handOvers)));
            if (peer != null) {
                double peerHandOvers = Math.max(1, peer.handOvers());
                md.append(String.format(
                        Locale.ROOT,
                        " (%s: %s and %s)",
                        peer.subject().library(),
                        perHandOver(
                                peer.usage().requestsFromClients(peer.subject().counters()), peerHandOvers),
                        perHandOver(peer.usage().wakeUps(), peerHandOvers)));
            }
            md.append('\n');
        }
        for (LeaderHandOver.Result leader : leaders) {
            md.append(String.format(
                    Locale.ROOT,
                    "- leader hand-over on resign, %s: p50 %s ms, p99 %s ms%n",
                    leader.backend(),
                    millis(leader.percentile(0.5)),
                    millis(leader.percentile(0.99))));
        }
        return md.toString();
    }

    /** The leader hand-over part: percentiles per backend. */
    static String leaders(Map<String, String> servers, List<LeaderHandOver.Result> leaders) {
        StringBuilder md = new StringBuilder("# Leader hand-over on resign\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Two candidates (`Leadership.campaign`) on two registries of distlock, standing for two JVMs, campaign"
                        + " for one name and take turns leading: the leader resigns, and a sample is the time from its"
                        + " `resign()` call to the other candidate's `granted` callback. %d hand-overs are not"
                        + " counted (the first waits open subscriptions, and the first runs are interpreted), then"
                        + " %d samples per backend, %d ms apart. The hand-over includes the resigning leader's"
                        + " `revoked` callback and its release.%n%n",
                LeaderHandOver.WARM_UP,
                LeaderHandOver.SAMPLES,
                LeaderHandOver.PAUSE_MILLIS));
        for (LeaderHandOver.Result leader : leaders) {
            md.append("- ")
                    .append(leader.backend())
                    .append(": ")
                    .append(servers.get(leader.backend()))
                    .append('\n');
        }
        md.append("\n| backend | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n");
        for (LeaderHandOver.Result leader : leaders) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s |%n",
                    leader.backend(),
                    millis(leader.percentile(0.5)),
                    millis(leader.percentile(0.9)),
                    millis(leader.percentile(0.99)),
                    millis(leader.percentile(1.0))));
        }
        return md.toString();
    }

    private static String millis(double micros) {
        return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }

    /** The other library measured on the same backend, for distlock's row; none for the peer's own row. */
    private static ManyWaiters.Outcome peerOf(ManyWaiters.Outcome outcome, List<ManyWaiters.Outcome> outcomes) {
        if (!outcome.subject().library().equals("distlock")) {
            return null;
        }
        return outcomes.stream()
                .filter(other -> other.backend().equals(outcome.backend()) && other != outcome)
                .findFirst()
                .orElse(null);
    }

    private static void servers(StringBuilder md, Map<String, String> servers) {
        servers.forEach((backend, server) ->
                md.append("- ").append(backend).append(": ").append(server).append('\n'));
        md.append('\n');
    }

    private static String breakdown(Map<String, Long> requests, double handOvers) {
        if (requests.isEmpty()) {
            return "–";
        }
        List<Map.Entry<String, Long>> largest = requests.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .toList();
        String shown = largest.stream()
                .limit(8)
                .map(entry -> entry.getKey() + " " + perHandOver(entry.getValue(), handOvers))
                .collect(Collectors.joining(", "));
        return largest.size() > 8 ? shown + ", …" : shown;
    }

    private static String perHandOver(double total, double handOvers) {
        if (Double.isNaN(total)) {
            return "n/a";
        }
        double value = total / handOvers;
        return String.format(Locale.ROOT, value >= 100 ? "%,.0f" : value >= 10 ? "%.1f" : "%.2f", value);
    }

    private static void perRound(StringBuilder md, String name, List<ReadWriteMix.Slice> slices) {
        md.append("- ").append(name).append(':');
        for (int round = 0; round < slices.size(); round++) {
            ReadWriteMix.Slice slice = slices.get(round);
            md.append(String.format(Locale.ROOT, " %,.0f / %,.1f", slice.reads(), slice.writes()))
                    .append(round + 1 < slices.size() ? ";" : "\n");
        }
    }

    private static String longest(List<ReadWriteMix.Slice> slices) {
        return String.format(
                Locale.ROOT,
                "%,.1f / %,.1f",
                slices.stream()
                                .mapToDouble(ReadWriteMix.Slice::longestReadMicros)
                                .max()
                                .orElse(Double.NaN)
                        / 1e3,
                slices.stream()
                                .mapToDouble(ReadWriteMix.Slice::longestWriteMicros)
                                .max()
                                .orElse(Double.NaN)
                        / 1e3);
    }

    private static double[] doubles(List<Double> rates) {
        return rates.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static double[] values(List<ReadWriteMix.Slice> slices, ToDoubleFunction<ReadWriteMix.Slice> value) {
        return slices.stream().mapToDouble(value).toArray();
    }

    /** A ratio to two places; a peer that did nothing in a round gives ∞. */
    private static String ratio(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return Double.isInfinite(value) ? "∞" : String.format(Locale.ROOT, "%.2f×", value);
    }
}
