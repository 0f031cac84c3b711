package dev.distlock.bench.contention;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Interleaved rounds: in each round every contestant runs one slice, the order rotating from
 * round to round (with two, it flips), so that load on the shared machine that hits one round
 * hits all contestants alike.
 */
final class Rounds {

    /** One slice of one contestant. */
    @FunctionalInterface
    interface Turn<T> {
        T run() throws Exception;
    }

    private Rounds() {}

    /** Runs {@code rounds} rounds; result {@code [contestant][round]}. */
    static <T> List<List<T>> interleaved(String what, int rounds, List<Turn<T>> contestants) throws Exception {
        List<List<T>> results = new ArrayList<>();
        for (int i = 0; i < contestants.size(); i++) {
            List<T> slots = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                slots.add(null);
            }
            results.add(slots);
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < contestants.size(); i++) {
                int contestant = (i + round) % contestants.size();
                results.get(contestant).set(round, contestants.get(contestant).run());
            }
            System.err.printf(Locale.ROOT, "  %s: round %d of %d done%n", what, round + 1, rounds);
        }
        return results;
    }
}
