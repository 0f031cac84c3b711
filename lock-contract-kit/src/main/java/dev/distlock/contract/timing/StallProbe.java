package dev.distlock.contract.timing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A daemon thread that sleeps {@value #PERIOD_MILLIS} ms at a time and records how late it wakes, which is how long
 * this JVM could not run a ready thread. {@link #shared()} is the JVM's one probe. In a child JVM started with {@link
 * #jvmOption}, it also appends each stall to a file the parent reads with {@link StallSource#reportedIn}.
 */
public final class StallProbe implements StallSource, AutoCloseable {

    /** The system property naming the file where a JVM's shared probe appends its stalls. */
    public static final String FILE_PROPERTY = "distlock.stall-probe.file";

    static final long PERIOD_MILLIS = 2;

    /** Lateness below this is the timer's own jitter, not a stall, and is not recorded. */
    static final long RECORDED_MICROS = 1000;

    private static StallProbe shared;

    private final StallLog log = new StallLog();
    /** Where this JVM's stalls are appended for a parent JVM. Empty when none reads them. */
    private final Optional<Writer> report;

    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean probing;

    private StallProbe(Optional<Writer> report) {
        this.report = report;
        line(0, 0); // links the string concatenation now rather than when the first stall is reported
        this.thread = new Thread(this::run, "distlock-stall-probe");
        thread.setDaemon(true);
        thread.start();
        // A thread may take tens of milliseconds to start on a loaded machine. A stall until then would go unseen.
        boolean interrupted = false;
        while (!probing) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * This JVM's probe, started on the first call and running until the JVM exits. When {@value #FILE_PROPERTY} is
     * set (a child JVM, see {@link #jvmOption}), it also appends its stalls to that file. A child's main calls this
     * first, or the child runs it through {@link ProbedMain}.
     */
    public static synchronized StallProbe shared() {
        if (shared == null) {
            String file = System.getProperty(FILE_PROPERTY);
            shared = new StallProbe(
                    Optional.ofNullable(file).filter(f -> !f.isBlank()).map(f -> appendingTo(Path.of(f))));
        }
        return shared;
    }

    /** The option that makes a child JVM's {@link #shared()} probe report its stalls in {@code file}. */
    public static String jvmOption(Path file) {
        return "-D" + FILE_PROPERTY + "=" + file.toAbsolutePath();
    }

    /** A probe of its own, measuring when this returns, for tests of the probe. Close it after use. */
    static StallProbe start() {
        return new StallProbe(Optional.empty());
    }

    @Override
    public Duration worstStall(Instant from, Instant to) {
        return log.worstStall(from, to);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }

    private void run() {
        long periodNanos = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        while (running) {
            long before = System.nanoTime();
            probing = true;
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long lateMicros = (System.nanoTime() - before - periodNanos) / 1000;
            if (lateMicros >= RECORDED_MICROS) {
                record(System.currentTimeMillis(), lateMicros);
            }
        }
    }

    private void record(long endMillis, long lateMicros) {
        log.add(endMillis, lateMicros);
        if (report.isPresent()) {
            try {
                report.get().write(line(endMillis, lateMicros));
                report.get().flush(); // the parent reads the file while this JVM runs, or after it was killed
            } catch (IOException e) {
                // The parent removed the file or the disk is full. The stalls stay in this JVM's log.
            }
        }
    }

    /** Formats without a formatter, whose first use loads classes for longer than the stall it would report. */
    private static String line(long endMillis, long lateMicros) {
        return endMillis + " " + lateMicros / 1000 + "." + (1000 + lateMicros % 1000 + "").substring(1) + "\n";
    }

    private static Writer appendingTo(Path file) {
        try {
            return Files.newBufferedWriter(
                    file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open " + file + " to report this JVM's stalls", e);
        }
    }
}
