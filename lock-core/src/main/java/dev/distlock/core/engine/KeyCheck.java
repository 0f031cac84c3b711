package dev.distlock.core.engine;

import java.time.Duration;

/** Input checks with messages that name the key, the backend and what to do. */
final class KeyCheck {

    private KeyCheck() {}

    static String fullKey(String key, String prefix, String backend, int maxLength) {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null (" + backend + " backend)");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException(
                    "Lock key must not be blank, was '" + key + "' (" + backend + " backend)");
        }
        String full = prefix + key;
        if (full.length() > maxLength) {
            throw new IllegalArgumentException("Lock key '" + abbreviate(key) + "' is " + full.length()
                    + " characters with the key prefix; the " + backend + " backend allows at most " + maxLength
                    + ". Use a shorter key, or a hash of it.");
        }
        return full;
    }

    static void duration(String name, Duration value, String key, String backend, boolean zeroAllowed) {
        if (value == null) {
            throw new IllegalArgumentException(
                    name + " must not be null (lock '" + key + "', " + backend + " backend)");
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? "zero or more" : "positive")
                    + ", was " + format(value) + " (lock '" + key + "', " + backend + " backend)");
        }
    }

    /** A duration as people write it: 50ms, 2s, 1m30s, 250us. */
    static String format(Duration duration) {
        if (duration.isNegative()) {
            return "-" + format(duration.negated());
        }
        long nanos = duration.toNanos();
        if (nanos % 1_000_000 != 0) {
            return nanos % 1_000 == 0 ? nanos / 1_000 + "us" : nanos + "ns";
        }
        long millis = duration.toMillis();
        if (millis % 1_000 != 0 || millis == 0) {
            return millis + "ms";
        }
        long seconds = duration.getSeconds();
        StringBuilder text = new StringBuilder();
        if (seconds >= 3600) {
            text.append(seconds / 3600).append('h');
            seconds %= 3600;
        }
        if (seconds >= 60) {
            text.append(seconds / 60).append('m');
            seconds %= 60;
        }
        if (seconds > 0) {
            text.append(seconds).append('s');
        }
        return text.toString();
    }

    private static String abbreviate(String key) {
        return key.length() <= 80 ? key : key.substring(0, 80) + "...";
    }
}
