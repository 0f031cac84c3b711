package dev.distlock.contract.timing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A check of a promised time bound that tells a broken promise from a machine that stalled. An overrun during a stall
 * larger than the test's margin is measured again, at most {@value #MAX_REPEATS} times. Any other overrun fails. How
 * stalls are measured is in {@code docs/internals/kit.md}.
 */
public final class TimingBound {

    /** How often an inconclusive measurement is repeated before the check fails. */
    public static final int MAX_REPEATS = 2;

    /** The system property naming the file every inconclusive repeat is appended to. */
    public static final String REPORT_PROPERTY = "distlock.timing.report";

    /** What each inconclusive repeat's line starts with, in the output and in the report file. */
    public static final String MARKER = "INCONCLUSIVE-TIMING";

    /** Time for a child JVM's last stall to reach its file, waited only after an overrun. */
    private static final long LATE_REPORT_MILLIS = 250;

    private final String test;
    private final Duration margin;
    private final StallSource stalls;
    private final Path report;
    private final RunQueueWait runQueue;

    private TimingBound(String test, Duration margin, StallSource stalls, Path report, RunQueueWait runQueue) {
        this.test = Objects.requireNonNull(test, "test");
        this.margin = Objects.requireNonNull(margin, "margin");
        this.stalls = Objects.requireNonNull(stalls, "stalls");
        this.report = Objects.requireNonNull(report, "report");
        this.runQueue = Objects.requireNonNull(runQueue, "runQueue");
        if (margin.isNegative()) {
            throw new IllegalArgumentException("The margin of " + test + " is negative: " + margin);
        }
    }

    /**
     * A check named {@code test} for which a stall up to {@code margin} is ordinary (usually the allowance its bounds
     * add to the promise for a busy machine), judged by this JVM's {@link StallProbe#shared() probe}, started now.
     */
    public static TimingBound of(String test, Duration margin) {
        String file = System.getProperty(REPORT_PROPERTY, "target/inconclusive-timing.txt");
        return new TimingBound(test, margin, StallProbe.shared(), Path.of(file), RunQueueWait.THIS_THREAD);
    }

    /** The same check judged by {@code stalls}. Where child JVMs take part, the worst of theirs and this JVM's. */
    public TimingBound withStalls(StallSource stalls) {
        return new TimingBound(test, margin, stalls, report, runQueue);
    }

    /** The same check appending its inconclusive repeats to {@code report}. */
    public TimingBound withReport(Path report) {
        return new TimingBound(test, margin, stalls, report, runQueue);
    }

    /** The same check learning the measuring thread's wait for a CPU from {@code runQueue}. For tests of the rule. */
    TimingBound withRunQueue(RunQueueWait runQueue) {
        return new TimingBound(test, margin, stalls, report, runQueue);
    }

    /**
     * Runs {@code measurement}, again while its overruns are inconclusive. Returns how often it was repeated. Fails
     * with an {@link AssertionError} on an overrun the stalls do not explain, or on a third inconclusive one.
     */
    public int check(Measurement measurement) throws Exception {
        for (int repeat = 0; ; repeat++) {
            Instant from = Instant.now();
            long waitedBefore = runQueue.waitedNanos();
            Timed timed = measurement.measure();
            long waitedAfter = runQueue.waitedNanos();
            Instant to = Instant.now();
            Duration overrun = timed.took().minus(timed.bound());
            if (overrun.isNegative() || overrun.isZero()) {
                return repeat;
            }
            Thread.sleep(LATE_REPORT_MILLIS);
            Duration probed = stalls.worstStall(from, to);
            Duration cpuWait = Duration.ofNanos(waitedBefore < 0 || waitedAfter < 0 ? 0 : waitedAfter - waitedBefore);
            Duration stall = probed.compareTo(cpuWait) >= 0 ? probed : cpuWait;
            String figures =
                    figures(timed, overrun, stall) + " probed=" + millis(probed) + " cpuWait=" + millis(cpuWait);
            if (stall.compareTo(margin) <= 0) {
                throw new AssertionError(test + " overran its bound while no JVM involved stalled longer than the"
                        + " margin: " + figures);
            }
            if (repeat == MAX_REPEATS) {
                throw new AssertionError(test + " was inconclusive " + (MAX_REPEATS + 1)
                        + " times: every measurement overran while the machine stalled more than the margin; "
                        + "the last: " + figures);
            }
            reportInconclusive(MARKER + " " + test + " " + figures + " repeat=" + (repeat + 1) + "/" + MAX_REPEATS);
        }
    }

    private String figures(Timed timed, Duration overrun, Duration stall) {
        return "took=" + millis(timed.took()) + " bound=" + millis(timed.bound()) + " overrun=" + millis(overrun)
                + " stall=" + millis(stall) + " margin=" + millis(margin);
    }

    private static String millis(Duration duration) {
        return duration.toMillis() + "ms";
    }

    private void reportInconclusive(String line) {
        System.out.println(line);
        try {
            Path parent = report.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(
                    report,
                    line + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not append an inconclusive timing to " + report, e);
        }
    }

    /**
     * One measurement of a time bound. Its own assertions (what the call returned) fail at once, never repeated. Each
     * run sets up what it measures afresh, since a second call on a server that fell silent is not the first one.
     */
    @FunctionalInterface
    public interface Measurement {
        Timed measure() throws Exception;
    }

    /** How long the measured call took, and the bound (the promise plus any allowance) it had to stay within. */
    public record Timed(Duration took, Duration bound) {

        /** What a call that started at {@code startNanos} ({@link System#nanoTime()}) took until now. */
        public static Timed since(long startNanos, Duration bound) {
            return new Timed(Duration.ofNanos(System.nanoTime() - startNanos), bound);
        }
    }
}
