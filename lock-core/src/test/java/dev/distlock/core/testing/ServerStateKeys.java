package dev.distlock.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;

/**
 * How many distinct keys a server-state test locks and releases before it counts what is left on
 * the server, and where it reports what it found. The test suite uses each test's own figure; a
 * scale run ({@code benchmarks/server-state.sh}) sets {@value #KEYS} (for example to 1,000,000)
 * for every backend at once and {@value #REPORT} to a file that collects one Markdown table row
 * per test.
 */
public final class ServerStateKeys {

    public static final String KEYS = "distlock.server-state.keys";
    public static final String REPORT = "distlock.server-state.report";

    private ServerStateKeys() {}

    /** The figure the scale run asked for, or {@code suiteFigure} in the test suite. */
    public static int count(int suiteFigure) {
        String value = System.getProperty(KEYS);
        if (value == null || value.isBlank()) {
            return suiteFigure;
        }
        int keys = Integer.parseInt(value.strip());
        if (keys < 1) {
            throw new IllegalArgumentException(KEYS + " must be at least 1, was " + value);
        }
        return keys;
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
        String report = System.getProperty(REPORT);
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
