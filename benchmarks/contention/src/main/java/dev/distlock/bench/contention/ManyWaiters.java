package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark;
import dev.distlock.bench.Benchmark.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Many clients on one key, each a thread with a client and registry of its own (standing for as
 * many JVMs), looping acquire+release: hand-overs/s, and per hand-over the server's requests,
 * wake-ups and CPU time, read from the server before and after each measured window.
 */
final class ManyWaiters {

    /** One library's clients, each an acquire+release of the same key, and the counters of its server. */
    record Subject(String library, List<Operation> clients, ServerCounters counters, String setup) {}

    /** One slice: hand-overs in the window, its length, the longest wait of any client, the server's usage. */
    record Slice(long handOvers, double seconds, double longestMicros, ServerCounters.Usage usage) {

        double rate() {
            return handOvers / seconds;
        }
    }

    /** What the rounds of one subject found. */
    record Outcome(String backend, Subject subject, List<Slice> slices) {

        ServerCounters.Usage usage() {
            return slices.stream().map(Slice::usage).reduce(ServerCounters.Usage.NONE, ServerCounters.Usage::plus);
        }

        long handOvers() {
            return slices.stream().mapToLong(Slice::handOvers).sum();
        }

        double[] rates() {
            return slices.stream().mapToDouble(Slice::rate).toArray();
        }

        double longestMicros() {
            return slices.stream().mapToDouble(Slice::longestMicros).max().orElse(Double.NaN);
        }
    }

    private ManyWaiters() {}

    /** Interleaved rounds of every subject (distlock first, its peer if any after). */
    static List<Outcome> measure(String backend, List<Subject> subjects, Settings settings) throws Exception {
        List<Rounds.Turn<Slice>> turns = new ArrayList<>();
        subjects.forEach(subject -> turns.add(() -> slice(subject, settings)));
        List<List<Slice>> slices = Rounds.interleaved(backend + " many waiters", settings.rounds(), turns);
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < subjects.size(); i++) {
            outcomes.add(new Outcome(backend, subjects.get(i), slices.get(i)));
        }
        return outcomes;
    }

    private static Slice slice(Subject subject, Settings settings) throws Exception {
        try (Benchmark.Load load =
                Benchmark.load(subject.library() + " " + subject.clients().size() + " waiters", subject.clients())) {
            Thread.sleep(settings.warmup().toMillis());
            ServerCounters.Snapshot before = subject.counters().snapshot();
            load.startWindow();
            Thread.sleep(settings.slice().toMillis());
            Benchmark.Window window = load.endWindow();
            ServerCounters.Snapshot after = subject.counters().snapshot();
            return new Slice(
                    window.completed(),
                    window.seconds(),
                    window.longestMicros(0, subject.clients().size()),
                    after.since(before));
        }
    }
}
