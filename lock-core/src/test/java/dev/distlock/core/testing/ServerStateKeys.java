package dev.distlock.core.testing;

/**
 * How many distinct keys a server-state test locks and releases before it counts what is left on
 * the server. The test suite uses each test's own figure; a scale run sets the system property
 * {@value #PROPERTY} (for example to 1,000,000) for every backend at once, see
 * {@code benchmarks/README.md}.
 */
public final class ServerStateKeys {

    public static final String PROPERTY = "distlock.server-state.keys";

    private ServerStateKeys() {}

    /** The figure the scale run asked for, or {@code suiteFigure} in the test suite. */
    public static int count(int suiteFigure) {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return suiteFigure;
        }
        int keys = Integer.parseInt(value.strip());
        if (keys < 1) {
            throw new IllegalArgumentException(PROPERTY + " must be at least 1, was " + value);
        }
        return keys;
    }
}
