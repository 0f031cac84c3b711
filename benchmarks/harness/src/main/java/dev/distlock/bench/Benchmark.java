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

    private static double percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
