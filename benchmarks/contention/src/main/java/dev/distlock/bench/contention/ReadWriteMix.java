package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark;
import dev.distlock.bench.Benchmark.Operation;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * 8 readers and 1 writer looping on one key, over two clients standing for two JVMs (readers
 * alternate between them, the writer is on the second): reads/s, writes/s and the longest wait of
 * a reader and of the writer, so that a starved side shows.
 */
final class ReadWriteMix {

    static final int READERS = 8;

    /** One library's read and write lock of one key; {@code readers} holds one operation per reader. */
    record Subject(String library, List<Operation> readers, Operation writer) {

        Subject {
            if (readers.size() != READERS) {
                throw new IllegalArgumentException(library + ": " + READERS + " readers expected");
            }
        }

        /** distlock's read/write lock of {@code key} on two registries. */
        static Subject distlock(String library, LockRegistry a, LockRegistry b, String key) {
            List<Operation> readers = new ArrayList<>();
            for (int i = 0; i < READERS; i++) {
                FencedLock read = (i % 2 == 0 ? a : b).readWriteLock(key).readLock();
                readers.add(() -> read.acquire().close());
            }
            FencedLock write = b.readWriteLock(key).writeLock();
            return new Subject(library, readers, () -> write.acquire().close());
        }
    }

    /** What one slice found: rates, and the longest acquire+release of any reader and of the writer. */
    record Slice(double reads, double writes, double longestReadMicros, double longestWriteMicros) {}

    /** What the rounds of one backend found. */
    sealed interface Result permits VersusPeer, Alone {}

    private ReadWriteMix() {}

    static Slice slice(Subject subject, Settings settings) throws Exception {
        List<Operation> threads = new ArrayList<>(subject.readers());
        threads.add(subject.writer());
        try (Benchmark.Load load = Benchmark.load(subject.library() + " 8 readers + 1 writer", threads)) {
            Thread.sleep(settings.warmup().toMillis());
            load.startWindow();
            Thread.sleep(settings.slice().toMillis());
            Benchmark.Window window = load.endWindow();
            return new Slice(
                    window.rate(0, READERS),
                    window.rate(READERS, READERS + 1),
                    window.longestMicros(0, READERS),
                    window.longestMicros(READERS, READERS + 1));
        }
    }

    /** One thread acquiring and releasing an idle key: the scale for a backend measured without a peer. */
    static double singleThread(String library, Operation operation, Settings settings) {
        return Benchmark.uncontended(library, settings.warmup(), settings.slice(), operation)
                .opsPerSecond();
    }

    /** Hand-overs/s of one key between {@code sides} (one thread each, a registry each). */
    static double handOvers(String library, List<Operation> sides, Settings settings) throws Exception {
        try (Benchmark.Load load = Benchmark.load(library + " hand-over", sides)) {
            Thread.sleep(settings.warmup().toMillis());
            load.startWindow();
            Thread.sleep(settings.slice().toMillis());
            return load.endWindow().rate(0, sides.size());
        }
    }

    /** distlock beside a peer on the same server, interleaved rounds. */
    record VersusPeer(String backend, String distlock, String peer, List<Slice> ours, List<Slice> theirs)
            implements Result {

        static VersusPeer measure(String backend, Subject distlock, Subject peer, Settings settings) throws Exception {
            List<List<Slice>> slices = Rounds.interleaved(
                    backend + " read/write mix",
                    settings.rounds(),
                    List.of(() -> slice(distlock, settings), () -> slice(peer, settings)));
            return new VersusPeer(backend, distlock.library(), peer.library(), slices.get(0), slices.get(1));
        }
    }

    /**
     * distlock alone: the mix, one thread's read and write acquire+release on an idle key (a write of the mix's one
     * writer cannot go faster than the second), and the plain lock's hand-overs between two registries (one thread
     * each) on one key, in interleaved rounds.
     */
    record Alone(
            String backend,
            String library,
            List<Slice> mix,
            List<Double> singleReads,
            List<Double> singleWrites,
            List<Double> plainHandOvers)
            implements Result {

        static Alone measure(
                String backend,
                Subject mix,
                Operation singleRead,
                Operation singleWrite,
                List<Operation> plainSides,
                Settings settings)
                throws Exception {
            List<List<Object>> slices = Rounds.interleaved(
                    backend + " read/write mix",
                    settings.rounds(),
                    List.of(
                            () -> slice(mix, settings),
                            () -> singleThread(mix.library(), singleRead, settings),
                            () -> singleThread(mix.library(), singleWrite, settings),
                            () -> handOvers(mix.library(), plainSides, settings)));
            return new Alone(
                    backend,
                    mix.library(),
                    slices.get(0).stream().map(Slice.class::cast).toList(),
                    slices.get(1).stream().map(Double.class::cast).toList(),
                    slices.get(2).stream().map(Double.class::cast).toList(),
                    slices.get(3).stream().map(Double.class::cast).toList());
        }
    }
}
