package dev.distlock.core.testing;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How many distinct keys, and distinct semaphore names, a server-state test locks and releases
 * before it counts what is left on the server, and where it reports what it found. The test suite
 * uses each test's own figures; a scale run ({@code benchmarks/run.sh server-state}) sets {@value
 * #KEYS} and {@value #SEMAPHORES} (for example to 1,000,000) for every backend at once, and
 * {@value #REPORT} and {@value #SEMAPHORE_REPORT} to files that collect one Markdown table row per
 * test. {@link #churnSemaphores} is the semaphore churn every backend's test runs.
 */
public final class ServerStateKeys {

    public static final String KEYS = "distlock.server-state.keys";
    public static final String REPORT = "distlock.server-state.report";
    public static final String SEMAPHORES = "distlock.server-state.semaphores";
    public static final String SEMAPHORE_REPORT = "distlock.server-state.semaphore-report";

    /** Permits of each churned semaphore: a name uses its two slot keys and its queue key. */
    public static final int PERMITS = 2;

    /** How long one acquisition of the churn may wait; only a stalled server makes it wait that long. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private ServerStateKeys() {}

    /** The number of keys the scale run asked for, or {@code suiteFigure} in the test suite. */
    public static int count(int suiteFigure) {
        return figure(KEYS, suiteFigure);
    }

    /** The number of semaphore names the scale run asked for, or {@code suiteFigure} in the test suite. */
    public static int semaphores(int suiteFigure) {
        return figure(SEMAPHORES, suiteFigure);
    }

    private static int figure(String property, int suiteFigure) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            return suiteFigure;
        }
        int figure = Integer.parseInt(value.strip());
        if (figure < 1) {
            throw new IllegalArgumentException(property + " must be at least 1, was " + value);
        }
        return figure;
    }

    /**
     * What {@link #churnSemaphores} did.
     *
     * @param names distinct semaphore names
     * @param acquisitions acquisitions granted
     * @param zeroWaitFailures zero-wait acquisitions that failed on a slow answer, as rule 8 allows
     * @param zeroWaitEmpties zero-wait acquisitions that found the free permit still held, by a take
     *     whose answer an earlier acquisition lost, and got it on a second try with a wait
     * @param took how long the churn took
     */
    public record SemaphoreChurn(
            int names, int acquisitions, int zeroWaitFailures, int zeroWaitEmpties, Duration took) {}

    /**
     * Acquires and releases {@code names} distinct semaphores of {@value #PERMITS} permits, named
     * {@code prefix + i}, each name once, on {@code threads} threads over {@code registries} (two or
     * more, standing for JVMs). Names take turns between three ways, so that every name takes all
     * three of its keys and a backend runs what it writes for a key that is taken, tried while held,
     * and waited for:
     *
     * <ol>
     *   <li>one acquisition of both permits;
     *   <li>one permit on one registry and, while it is held, one on another with a zero wait
     *       (which tries the held slot first about half the time, and then reads its holder);
     *   <li>one permit on one registry and, on another, an acquisition of both permits, which takes
     *       the queue and waits for the first permit; that is given back once the waiter holds the
     *       queue.
     * </ol>
     *
     * Every permit is given back before this returns, and no wait is left abandoned: what the server
     * then holds for these names is what a backend keeps of released locks. The zero wait of the
     * second way may fail with {@link LockBackendException} when an answer is slow (contract 8);
     * that is counted, not thrown. What a take whose answer was lost wrote stays until it is freed
     * in the background, as for a lock; a later zero wait that finds the free permit held by it is
     * counted and tried again with a wait, and more than one such name in a hundred fails the churn.
     *
     * @throws AssertionError naming the semaphore when an acquisition is not granted as it must be
     */
    public static SemaphoreChurn churnSemaphores(
            List<? extends LockRegistry> registries, int threads, int names, String prefix) throws Exception {
        if (registries.size() < 2) {
            throw new IllegalArgumentException("the semaphore churn needs two registries or more");
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CompletionService<Integer> workers = new ExecutorCompletionService<>(pool);
        long start = System.nanoTime();
        int acquisitions = 0;
        AtomicInteger zeroWaitFailures = new AtomicInteger();
        AtomicInteger zeroWaitEmpties = new AtomicInteger();
        try {
            for (int t = 0; t < threads; t++) {
                int first = t;
                workers.submit(() -> {
                    int acquired = 0;
                    for (int i = first; i < names; i += threads) {
                        LockRegistry one = registries.get(i % registries.size());
                        LockRegistry other = registries.get((i + 1) % registries.size());
                        acquired += churnOne(one, other, prefix + i, i % 3, zeroWaitFailures, zeroWaitEmpties);
                    }
                    return acquired;
                });
            }
            // Generous, so that only a hang ends the run: a million names take minutes to an hour.
            long limit = TimeUnit.MINUTES.toNanos(10) + TimeUnit.MILLISECONDS.toNanos(20L * names);
            long deadline = System.nanoTime() + limit;
            for (int t = 0; t < threads; t++) {
                // In the order they end, so that the first failure ends the churn.
                Future<Integer> worker = workers.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (worker == null) {
                    throw new AssertionError("the semaphore churn of " + names + " names did not end in "
                            + Duration.ofNanos(limit).toMinutes() + " minutes");
                }
                try {
                    acquisitions += worker.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    if (e.getCause() instanceof Exception cause) {
                        throw cause;
                    }
                    throw e;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        // Lost answers are rare: a zero wait that misses the free permit on more names than that is a defect.
        int allowed = 2 + names / 100;
        if (zeroWaitEmpties.get() > allowed) {
            throw new AssertionError(zeroWaitEmpties.get() + " of " + names + " zero-wait acquisitions found the free"
                    + " permit held and got it only on a second try; at most " + allowed + " may");
        }
        return new SemaphoreChurn(
                names,
                acquisitions,
                zeroWaitFailures.get(),
                zeroWaitEmpties.get(),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** One name, in one of the three ways of {@link #churnSemaphores}; returns the acquisitions made. */
    private static int churnOne(
            LockRegistry one,
            LockRegistry other,
            String name,
            int way,
            AtomicInteger zeroWaitFailures,
            AtomicInteger zeroWaitEmpties)
            throws Exception {
        LeasedSemaphore here = LeasedSemaphore.of(one, name, PERMITS);
        LeasedSemaphore there = LeasedSemaphore.of(other, name, PERMITS);
        if (way == 0) {
            try (Permits both = acquire(here, PERMITS, "both permits")) {
                expect(both.count() == PERMITS && both.isValid(), here, "both permits, valid", both);
            }
            return 1;
        }
        Permits first = acquire(here, 1, "a permit of a free semaphore");
        if (way == 1) {
            try (first) {
                Optional<Permits> second;
                try {
                    second = there.tryAcquire(1, Duration.ZERO);
                } catch (LockBackendException e) {
                    // Allowed: a zero wait fails at once on an answer slower than the contract's slack (rule 8).
                    zeroWaitFailures.incrementAndGet();
                    return 1;
                }
                if (second.isEmpty()) {
                    // An acquisition whose slot take lost its answer (rule 8) may have left that take holding
                    // the other slot until it is freed in the background, within about a second: the free
                    // permit must turn up within a wait, and this must stay rare (checked at the end).
                    zeroWaitEmpties.incrementAndGet();
                    second = there.tryAcquire(1, WAIT);
                }
                try (Permits left = granted(second, there, "the permit left free")) {
                    expect(
                            first.list().get(0).slot() != left.list().get(0).slot(),
                            there,
                            "the other slot than " + first,
                            left);
                }
            }
            return 2;
        }
        CompletableFuture<Optional<Permits>> waiter = there.acquireAsync(PERMITS, WAIT);
        try (first) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (one.holderOf(here.waitingKey()).isEmpty()) {
                if (waiter.isDone()) {
                    Throwable failure = waiter.handle((permits, error) -> error).join();
                    throw new AssertionError(
                            there + ": the acquisition of both permits, waiting up to " + WAIT.toSeconds()
                                    + " s, ended while " + first + " was held"
                                    + (failure instanceof LockBackendException ? RIDE_OUT : ""),
                            failure);
                }
                expect(System.nanoTime() < deadline, there, "to take the queue within " + WAIT, waiter);
                LockSupport.parkNanos(100_000);
            }
        } catch (RuntimeException | Error e) {
            waiter.cancel(true);
            throw e;
        }
        Optional<Permits> both;
        try {
            both = waiter.get(WAIT.toSeconds() + 10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            waiter.cancel(true);
            throw new AssertionError("the acquisition of both permits of " + there + " did not end", e);
        } catch (ExecutionException e) {
            throw new AssertionError(
                    there + ": the acquisition of both permits, waiting up to " + WAIT.toSeconds() + " s, failed"
                            + (e.getCause() instanceof LockBackendException ? RIDE_OUT : ""),
                    e.getCause());
        }
        try (Permits taken = granted(both, there, "both permits once the other was given back")) {
            expect(taken.count() == PERMITS, there, "both permits", taken);
        }
        return 2;
    }

    private static final String RIDE_OUT =
            ", failing instead of riding out a passing failure while its wait lasts (contract 8, docs/semaphores.md)";

    /** {@code count} permits of {@code semaphore}, waiting up to {@link #WAIT}. */
    private static Permits acquire(LeasedSemaphore semaphore, int count, String expected) throws InterruptedException {
        long start = System.nanoTime();
        try {
            return granted(semaphore.tryAcquire(count, WAIT), semaphore, expected);
        } catch (LockBackendException e) {
            throw new AssertionError(
                    semaphore + ": an acquisition of " + count + " permits, waiting up to " + WAIT.toSeconds()
                            + " s, failed after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms"
                            + RIDE_OUT,
                    e);
        }
    }

    private static Permits granted(Optional<Permits> permits, LeasedSemaphore semaphore, String expected) {
        return permits.orElseThrow(() -> new AssertionError(semaphore + ": expected " + expected + ", got none"));
    }

    private static void expect(boolean condition, LeasedSemaphore semaphore, String expected, Object got) {
        if (!condition) {
            throw new AssertionError(semaphore + ": expected " + expected + ", got " + got);
        }
    }

    /**
     * Checks that a churned name still counts its permits: {@code registries.get(0)} takes both,
     * {@code registries.get(1)} then gets none, and both once they are given back.
     *
     * @throws AssertionError naming the semaphore when it does not
     */
    public static void assertSemaphoreStillWorks(List<? extends LockRegistry> registries, String name)
            throws InterruptedException {
        LeasedSemaphore here = LeasedSemaphore.of(registries.get(0), name, PERMITS);
        LeasedSemaphore there = LeasedSemaphore.of(registries.get(1), name, PERMITS);
        try (Permits both = acquire(here, PERMITS, "both permits")) {
            Optional<Permits> more = there.tryAcquire(1, Duration.ZERO);
            more.ifPresent(Permits::close);
            expect(more.isEmpty() && both.isValid(), there, "no permit while " + both + " is held", more);
        }
        acquire(there, PERMITS, "both permits once they were given back").close();
    }

    /**
     * Prints what a test found and, in a scale run, appends it to the report as a table row.
     *
     * @param backend the backend and its variant, e.g. "Redis (single)"
     * @param keys distinct keys locked and released
     * @param took how long locking and releasing them took
     * @param before what the server held before, e.g. "3 keys, 1.1 MB used"
     * @param after what it held after the documented horizon, in the same terms
     */
    public static void report(String backend, int keys, Duration took, String before, String after) {
        String row = String.format(
                Locale.ROOT,
                "| %s | %,d | %.1f s | %,.0f/s | %s | %s |",
                backend,
                keys,
                took.toMillis() / 1000.0,
                keys / Math.max(took.toNanos() / 1e9, 1e-9),
                before,
                after);
        System.out.println("server state " + row);
        append(REPORT, row);
    }

    /**
     * As {@link #report} for a semaphore churn: the row goes to the {@value #SEMAPHORE_REPORT} file,
     * with the names, the acquisitions and the names per second.
     */
    public static void reportSemaphores(String backend, SemaphoreChurn churn, String before, String after) {
        String row = String.format(
                Locale.ROOT,
                "| %s | %,d | %,d | %.1f s | %,.0f/s | %s | %s |",
                backend,
                churn.names(),
                churn.acquisitions(),
                churn.took().toMillis() / 1000.0,
                churn.names() / Math.max(churn.took().toNanos() / 1e9, 1e-9),
                before,
                after);
        System.out.println("server state (semaphores) " + row + " zero-wait failures: " + churn.zeroWaitFailures()
                + ", zero-wait empties tried again: " + churn.zeroWaitEmpties());
        append(SEMAPHORE_REPORT, row);
    }

    private static void append(String property, String row) {
        String report = System.getProperty(property);
        if (report != null && !report.isBlank()) {
            try {
                Files.writeString(
                        Path.of(report),
                        row + System.lineSeparator(),
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** {@code bytes} as B, KB or MB (powers of 1024), for report cells. */
    public static String bytes(long bytes) {
        if (Math.abs(bytes) < 1024) {
            return bytes + " B";
        }
        if (Math.abs(bytes) < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
    }
}
