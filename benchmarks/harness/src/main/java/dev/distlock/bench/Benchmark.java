package dev.distlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A small harness for lock benchmarks: single-thread acquire+release latency and throughput,
 * and contended handoffs between threads on one key. Results go to a Markdown file, so that
 * every library measured in one run sits in one table on the same server.
 */
public final class Benchmark {

    /** One lock operation under measurement (acquire, optional work, release). */
    @FunctionalInterface
    public interface Operation {
        void run() throws Exception;
    }

    /** What one measurement found. */
    public record Result(
            String library, String scenario, long operations, double opsPerSecond, double p50Micros, double p99Micros) {

        String row() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,.0f | %s | %s |",
                    library,
                    scenario,
                    operations,
                    opsPerSecond,
                    micros(p50Micros),
                    micros(p99Micros));
        }

        private static String micros(double value) {
            return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%,.0f", value);
        }
    }

    private Benchmark() {}

    /** One thread repeating {@code operation}; latency percentiles from every call. */
    public static Result uncontended(String library, Duration warmup, Duration measure, Operation operation) {
        loopFor(warmup, operation);
        long[] samples = new long[1 << 16];
        int count = 0;
        long end = System.nanoTime() + measure.toNanos();
        long started = System.nanoTime();
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            call(operation);
            long took = System.nanoTime() - t0;
            if (count == samples.length) {
                samples = Arrays.copyOf(samples, samples.length * 2);
            }
            samples[count++] = took;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        return new Result(
                library,
                "1 thread, uncontended acquire+release",
                count,
                count / seconds,
                percentile(sorted, 0.50) / 1e3,
                percentile(sorted, 0.99) / 1e3);
    }

    /**
     * {@code threads} threads repeating {@code operation} on one key; every completed
     * operation after the first is a handoff from one owner to the next.
     */
    public static Result contended(String library, int threads, Duration warmup, Duration measure, Operation operation)
            throws InterruptedException {
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong operations = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                call(operation);
                                if (counting.get()) {
                                    operations.incrementAndGet();
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            done.countDown();
                        }
                    },
                    "bench-" + i);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        Thread.sleep(warmup.toMillis());
        counting.set(true);
        long started = System.nanoTime();
        Thread.sleep(measure.toMillis());
        counting.set(false);
        double seconds = (System.nanoTime() - started) / 1e9;
        stop.set(true);
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(library + " failed under contention", failure.get());
        }
        long ops = operations.get();
        return new Result(library, threads + " threads, one key: handoffs", ops, ops / seconds, Double.NaN, Double.NaN);
    }

    /**
     * Starts one thread per operation, each repeating its own operation (its own client, say)
     * until the load is closed. Measure with {@link Load#startWindow()} and {@link
     * Load#endWindow()}, reading server counters around them if needed.
     */
    public static Load load(String name, List<Operation> operations) {
        return new Load(name, operations);
    }

    /** Threads repeating their operations; counts per thread and each thread's longest call. */
    public static final class Load implements AutoCloseable {

        private final String name;
        private final List<Worker> workers = new ArrayList<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private long windowStart;
        private long[] completedAtStart;

        private Load(String name, List<Operation> operations) {
            this.name = name;
            for (int i = 0; i < operations.size(); i++) {
                Worker worker = new Worker(operations.get(i), name + "-" + i);
                workers.add(worker);
            }
            workers.forEach(worker -> worker.thread.start());
        }

        /** Starts counting: calls that end from now on, and each thread's longest call from now on. */
        public void startWindow() {
            checkFailure();
            completedAtStart = new long[workers.size()];
            for (int i = 0; i < workers.size(); i++) {
                Worker worker = workers.get(i);
                worker.longest.set(0);
                completedAtStart[i] = worker.completed.get();
            }
            windowStart = System.nanoTime();
        }

        /**
         * What happened since {@link #startWindow()}. A call still running counts towards its
         * thread's longest with the time it has taken so far, so a thread that never gets through
         * shows as such.
         */
        public Window endWindow() {
            long end = System.nanoTime();
            long[] completed = new long[workers.size()];
            long[] longest = new long[workers.size()];
            for (int i = 0; i < workers.size(); i++) {
                Worker worker = workers.get(i);
                completed[i] = worker.completed.get() - completedAtStart[i];
                long started = worker.callStarted;
                long running = started == 0 ? 0 : end - Math.max(started, windowStart);
                longest[i] = Math.max(worker.longest.get(), running);
            }
            checkFailure();
            return new Window((end - windowStart) / 1e9, completed, longest);
        }

        /** Stops the threads once their current call returns (interrupting them after 30 s). */
        @Override
        public void close() {
            stop.set(true);
            try {
                for (Worker worker : workers) {
                    worker.thread.join(30_000);
                    if (worker.thread.isAlive()) {
                        worker.thread.interrupt();
                        worker.thread.join(10_000);
                    }
                }
            } catch (InterruptedException e) {
                workers.forEach(worker -> worker.thread.interrupt());
                Thread.currentThread().interrupt();
            }
            checkFailure();
        }

        private void checkFailure() {
            if (failure.get() != null) {
                throw new IllegalStateException(name + " failed", failure.get());
            }
        }

        private final class Worker {
            final Thread thread;
            final AtomicLong completed = new AtomicLong();
            final AtomicLong longest = new AtomicLong();
            volatile long callStarted;

            Worker(Operation operation, String threadName) {
                thread = new Thread(() -> repeat(operation), threadName);
                thread.setDaemon(true);
            }

            private void repeat(Operation operation) {
                try {
                    while (!stop.get()) {
                        long started = System.nanoTime();
                        callStarted = started;
                        operation.run();
                        long took = System.nanoTime() - started;
                        callStarted = 0;
                        completed.incrementAndGet();
                        longest.accumulateAndGet(took, Math::max);
                    }
                } catch (Throwable e) {
                    if (!stop.get()) { // a call interrupted by close() is no failure
                        failure.compareAndSet(null, e);
                    }
                }
            }
        }
    }

    /** One window of a {@link Load}: its length, and per thread the calls completed and the longest call. */
    public record Window(double seconds, long[] completedByThread, long[] longestNanos) {

        /** Calls completed by threads {@code from} (inclusive) to {@code to} (exclusive). */
        public long completed(int from, int to) {
            return Arrays.stream(completedByThread, from, to).sum();
        }

        /** Calls completed by all threads. */
        public long completed() {
            return completed(0, completedByThread.length);
        }

        /** The longest call of threads {@code from} (inclusive) to {@code to} (exclusive), in microseconds. */
        public double longestMicros(int from, int to) {
            return Arrays.stream(longestNanos, from, to).max().orElse(0) / 1e3;
        }

        /** Completed calls per second of threads {@code from} (inclusive) to {@code to} (exclusive). */
        public double rate(int from, int to) {
            return completed(from, to) / seconds;
        }
    }

    /** Writes the results as a Markdown table, with what was measured and where. */
    public static void write(Path file, String title, String setup, List<Result> results) {
        StringBuilder text = new StringBuilder()
                .append("# ")
                .append(title)
                .append("\n\n")
                .append("Measured ")
                .append(Instant.now())
                .append(" on ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ")
                .append(System.getProperty("java.version"))
                .append(".\n\n")
                .append(setup)
                .append("\n\n")
                .append("| library | scenario | operations | ops/s | p50 µs | p99 µs |\n")
                .append("|---|---|---:|---:|---:|---:|\n");
        results.forEach(result -> text.append(result.row()).append('\n'));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
        System.out.println(text);
    }

    private static void loopFor(Duration duration, Operation operation) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            call(operation);
        }
    }

    private static void call(Operation operation) {
        try {
            operation.run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The median over the rounds of {@code values[round] / baseline[round]}: comparing within each
     * round, a burst of load on the machine that hits one round's slices moves the result little.
     */
    public static double medianRatio(double[] values, double[] baseline) {
        double[] ratios = new double[values.length];
        for (int round = 0; round < values.length; round++) {
            ratios[round] = values[round] / baseline[round];
        }
        return median(ratios);
    }

    /** The median; the mean of the two middle values when their number is even. */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The nearest-rank percentile of sorted samples ({@code fraction} 0.5 for the median); NaN for none. */
    public static double percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
