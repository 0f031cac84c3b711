package dev.distlock.bench.contention;

import dev.distlock.contract.timing.CpuHog;
import dev.distlock.contract.timing.StallProbe;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How far calls overrun their wait while the CPU is overloaded: plain locks and semaphores side by side, on the same
 * registries, in rounds whose order flips. {@value #THREADS} threads over {@value #REGISTRIES} registries (each with a
 * client of its own) loop on {@value #SLOTS} holders at a time: a semaphore of {@value #SLOTS} permits, or {@value
 * #SLOTS} plain keys with the threads spread over them, so that both sides see the same contention. Each call waits
 * 0, 50 or 200 ms in turn, holds for {@value #HOLD_MILLIS} ms, and releases. Busy threads that spin keep the machine's
 * run queue long while they do ({@code contention.hogs}, 8 by default), as a loaded host would.
 *
 * <p>A call's overrun is the time it took beyond its wait; rule 8 of the contract bounds it by the registry's answer
 * budget ({@link RegistryOptions#DEFAULT_ANSWER_BUDGET}). The worst stall of this JVM in each side's slices (the stall
 * probe of the test suite) says how late the machine itself was.
 */
final class OverrunUnderLoad {

    static final int REGISTRIES = 4;
    static final int THREADS = 12;
    static final int SLOTS = 3;
    static final int HOLD_MILLIS = 2;
    private static final Duration[] WAITS = {Duration.ZERO, Duration.ofMillis(50), Duration.ofMillis(200)};
    /** The overrun the previous rule 8 allowed, kept as a column to compare with older figures. */
    private static final Duration OLD_ALLOWANCE = Duration.ofMillis(250);

    private OverrunUnderLoad() {}

    /** The calls of one side, over every round. */
    static final class Side {
        final String name;
        private final List<Long> overruns = new ArrayList<>();
        private final List<Long> releases = new ArrayList<>();
        private long zeroWaitWorst;
        private long worstStall;
        private final Map<String, Integer> errors = new LinkedHashMap<>();

        Side(String name) {
            this.name = name;
        }

        synchronized void call(Duration wait, long tookNanos) {
            long overrun = Math.max(0, tookNanos - wait.toNanos());
            overruns.add(overrun);
            if (wait.isZero()) {
                zeroWaitWorst = Math.max(zeroWaitWorst, overrun);
            }
        }

        synchronized void release(long tookNanos) {
            releases.add(tookNanos);
        }

        synchronized void error(Exception e) {
            String text = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage());
            errors.merge(text.length() > 300 ? text.substring(0, 300) + "…" : text, 1, Integer::sum);
        }

        synchronized void stall(Duration stall) {
            worstStall = Math.max(worstStall, stall.toNanos());
        }

        synchronized int calls() {
            return overruns.size();
        }

        synchronized long over(Duration limit) {
            return overruns.stream()
                    .filter(overrun -> overrun > limit.toNanos())
                    .count();
        }

        synchronized double p99Millis() {
            return percentile(overruns, 0.99);
        }

        synchronized double maxMillis() {
            return percentile(overruns, 1.0);
        }

        synchronized double releaseMaxMillis() {
            return percentile(releases, 1.0);
        }

        synchronized double zeroWaitWorstMillis() {
            return zeroWaitWorst / 1e6;
        }

        synchronized double worstStallMillis() {
            return worstStall / 1e6;
        }

        synchronized int errorCount() {
            return errors.values().stream().mapToInt(Integer::intValue).sum();
        }

        synchronized Map<String, Integer> errors() {
            return new LinkedHashMap<>(errors);
        }

        private static double percentile(List<Long> values, double quantile) {
            if (values.isEmpty()) {
                return Double.NaN;
            }
            long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
            int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
            return sorted[Math.max(0, index)] / 1e6;
        }
    }

    /** Both sides on one backend. */
    record Result(String backend, Side plain, Side semaphore, int hogs) {
        Duration budget() {
            return RegistryOptions.DEFAULT_ANSWER_BUDGET;
        }

        Duration oldAllowance() {
            return OLD_ALLOWANCE;
        }
    }

    static Result measure(String backend, List<LockRegistry> registries, Settings settings) throws Exception {
        if (registries.size() != REGISTRIES) {
            throw new IllegalArgumentException("want " + REGISTRIES + " registries, got " + registries.size());
        }
        int hogs = Integer.getInteger("contention.hogs", 8);
        Side plain = new Side("plain locks (" + SLOTS + " keys)");
        Side semaphore = new Side("semaphore (" + SLOTS + " permits)");
        String run = Long.toHexString(System.nanoTime());
        List<LeasedSemaphore> semaphores = registries.stream()
                .map(registry -> LeasedSemaphore.of(registry, "overrun-" + run, SLOTS))
                .toList();
        StallProbe probe = StallProbe.shared();
        try (CpuHog load = CpuHog.threads(hogs, Duration.ofHours(1))) {
            for (int round = 0; round < settings.rounds(); round++) {
                boolean plainFirst = round % 2 == 0;
                for (int turn = 0; turn < 2; turn++) {
                    boolean plainTurn = plainFirst == (turn == 0);
                    Side side = plainTurn ? plain : semaphore;
                    slice(settings.warmup(), registries, semaphores, plainTurn, run, null);
                    Instant from = Instant.now();
                    slice(settings.slice(), registries, semaphores, plainTurn, run, side);
                    side.stall(probe.worstStall(from, Instant.now()));
                }
            }
        }
        return new Result(backend, plain, semaphore, hogs);
    }

    /** {@value #THREADS} threads loop for {@code length}; their calls count for {@code side} unless it is null (warm-up). */
    private static void slice(
            Duration length,
            List<LockRegistry> registries,
            List<LeasedSemaphore> semaphores,
            boolean plainTurn,
            String run,
            Side side)
            throws InterruptedException {
        long end = System.nanoTime() + length.toNanos();
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Thread worker = new Thread(
                    () -> {
                        try {
                            loop(end, thread, registries, semaphores, plainTurn, run, side);
                        } finally {
                            done.countDown();
                        }
                    },
                    "overrun-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        // A call never outlives its wait and the budget by much; a slice that does not end is a finding too.
        if (!done.await(length.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("a slice's calls had not returned 60 s after its end");
        }
    }

    private static void loop(
            long end,
            int thread,
            List<LockRegistry> registries,
            List<LeasedSemaphore> semaphores,
            boolean plainTurn,
            String run,
            Side side) {
        LockRegistry registry = registries.get(thread % REGISTRIES);
        LeasedSemaphore semaphore = semaphores.get(thread % REGISTRIES);
        String key = "overrun-" + run + "-" + (thread % SLOTS);
        for (int call = thread; System.nanoTime() - end < 0; call++) {
            Duration wait = WAITS[call % WAITS.length];
            long start = System.nanoTime();
            try {
                AutoCloseable held;
                if (plainTurn) {
                    Optional<LockHandle> handle = registry.obtain(key).tryAcquire(wait);
                    held = handle.orElse(null);
                } else {
                    Optional<Permits> permits = semaphore.tryAcquire(1, wait);
                    held = permits.orElse(null);
                }
                long took = System.nanoTime() - start;
                if (side != null) {
                    side.call(wait, took);
                }
                if (held != null) {
                    Thread.sleep(HOLD_MILLIS);
                    long releaseStart = System.nanoTime();
                    held.close();
                    if (side != null) {
                        side.release(System.nanoTime() - releaseStart);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (side != null) {
                    side.call(wait, System.nanoTime() - start);
                    side.error(e);
                }
            }
        }
    }

    /** The report: one row per backend and side. */
    static String report(Settings settings, Map<String, String> servers, List<Result> results) {
        StringBuilder md = new StringBuilder("# Calls under CPU load: plain locks beside semaphores\n\n");
        md.append(String.format(
                java.util.Locale.ROOT,
                "%d registries (a client each), %d threads, %d holders at a time (%d plain keys, or a semaphore of %d"
                        + " permits), waits of %s in turn, holds of %d ms; %s threads spinning meanwhile. %s; the sides"
                        + " alternate and their order flips every round. Overrun: how long a call took beyond its"
                        + " wait. Rule 8 bounds it by the registry's answer budget (%d ms by default).\n\n",
                REGISTRIES,
                THREADS,
                SLOTS,
                SLOTS,
                SLOTS,
                Arrays.toString(
                        Arrays.stream(WAITS).map(w -> w.toMillis() + " ms").toArray()),
                HOLD_MILLIS,
                results.isEmpty() ? "?" : Integer.toString(results.get(0).hogs()),
                settings.describe(),
                RegistryOptions.DEFAULT_ANSWER_BUDGET.toMillis()));
        md.append("| backend | side | calls | overrun p99 (ms) | overrun max (ms) | zero wait max (ms) |"
                + " over 250 ms | over the budget | errors | release max (ms) | worst stall of this JVM (ms) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Result result : results) {
            for (Side side : List.of(result.plain(), result.semaphore())) {
                md.append(String.format(
                        java.util.Locale.ROOT,
                        "| %s | %s | %,d | %.0f | %.0f | %.0f | %d | %d | %d | %.0f | %.0f |\n",
                        result.backend(),
                        side.name,
                        side.calls(),
                        side.p99Millis(),
                        side.maxMillis(),
                        side.zeroWaitWorstMillis(),
                        side.over(result.oldAllowance()),
                        side.over(result.budget()),
                        side.errorCount(),
                        side.releaseMaxMillis(),
                        side.worstStallMillis()));
            }
        }
        md.append("\nSemaphore p99 overrun ÷ plain p99 overrun: ");
        List<String> ratios = new ArrayList<>();
        for (Result result : results) {
            ratios.add(String.format(
                    java.util.Locale.ROOT,
                    "%s %.2f×",
                    result.backend(),
                    result.semaphore().p99Millis()
                            / Math.max(1e-3, result.plain().p99Millis())));
        }
        md.append(String.join(", ", ratios)).append(".\n");
        boolean anyErrors = false;
        for (Result result : results) {
            for (Side side : List.of(result.plain(), result.semaphore())) {
                for (Map.Entry<String, Integer> error : side.errors().entrySet()) {
                    if (!anyErrors) {
                        md.append("\nErrors:\n\n");
                        anyErrors = true;
                    }
                    md.append("- ")
                            .append(result.backend())
                            .append(", ")
                            .append(side.name)
                            .append(", ")
                            .append(error.getValue())
                            .append("×: ")
                            .append(error.getKey().replace('\n', ' ').replace("|", "\\|"))
                            .append('\n');
                }
            }
        }
        md.append("\nServers: ");
        servers.forEach(
                (name, server) -> md.append(name).append(": ").append(server).append("; "));
        md.append('\n');
        return md.toString();
    }
}
