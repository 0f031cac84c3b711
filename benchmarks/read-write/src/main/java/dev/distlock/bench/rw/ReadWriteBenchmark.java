package dev.distlock.bench.rw;

import dev.distlock.bench.Benchmark;
import dev.distlock.bench.Benchmark.Result;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Read/write lock figures for one backend: one thread's plain, read and write
 * acquire+release on an idle key, and 8 readers plus 1 writer on one key (two registries, standing
 * for two JVMs), counted separately.
 */
public final class ReadWriteBenchmark {

    private static final Duration WARMUP = Duration.ofSeconds(1);
    private static final Duration MEASURE = Duration.ofSeconds(3);

    private ReadWriteBenchmark() {}

    public static List<Result> run(String library, LockRegistry a, LockRegistry b) throws InterruptedException {
        List<Result> results = new ArrayList<>();
        FencedLock read = a.readWriteLock("bench-read").readLock();
        FencedLock write = a.readWriteLock("bench-write").writeLock();
        FencedLock plain = a.obtain("bench-plain");
        // The plain lock in the same run, for scale: the machine's load moves every row alike.
        results.add(rename(
                Benchmark.uncontended(
                        library, WARMUP, MEASURE, () -> plain.acquire().close()),
                "1 thread, plain lock acquire+release"));
        results.add(rename(
                Benchmark.uncontended(
                        library, WARMUP, MEASURE, () -> read.acquire().close()),
                "1 thread, read acquire+release"));
        results.add(rename(
                Benchmark.uncontended(
                        library, WARMUP, MEASURE, () -> write.acquire().close()),
                "1 thread, write acquire+release"));
        results.addAll(mixed(library, a, b));
        return results;
    }

    private static Result rename(Result result, String scenario) {
        return new Result(
                result.library(),
                scenario,
                result.operations(),
                result.opsPerSecond(),
                result.p50Micros(),
                result.p99Micros());
    }

    private static List<Result> mixed(String library, LockRegistry a, LockRegistry b) throws InterruptedException {
        String key = "bench-mixed";
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(9);
        for (int i = 0; i < 9; i++) {
            boolean writer = i == 8;
            FencedLock lock = writer
                    ? b.readWriteLock(key).writeLock()
                    : (i % 2 == 0 ? a : b).readWriteLock(key).readLock();
            AtomicLong count = writer ? writes : reads;
            Thread worker = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                lock.acquire().close();
                                if (counting.get()) {
                                    count.incrementAndGet();
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            done.countDown();
                        }
                    },
                    "bench-rw-" + i);
            worker.setDaemon(true);
            worker.start();
        }
        Thread.sleep(WARMUP.toMillis());
        counting.set(true);
        long started = System.nanoTime();
        Thread.sleep(MEASURE.toMillis());
        counting.set(false);
        double seconds = (System.nanoTime() - started) / 1e9;
        stop.set(true);
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(library + " failed with 8 readers and 1 writer", failure.get());
        }
        return List.of(
                new Result(
                        library,
                        "8 readers + 1 writer: reads",
                        reads.get(),
                        reads.get() / seconds,
                        Double.NaN,
                        Double.NaN),
                new Result(
                        library,
                        "8 readers + 1 writer: writes",
                        writes.get(),
                        writes.get() / seconds,
                        Double.NaN,
                        Double.NaN));
    }
}
