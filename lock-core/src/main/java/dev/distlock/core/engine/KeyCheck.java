package dev.distlock.core.engine;

import dev.distlock.core.DurationText;
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
                    + ", was " + DurationText.format(value) + " (lock '" + key + "', " + backend + " backend)");
        }
    }

    private static String abbreviate(String key) {
        return key.length() <= 80 ? key : key.substring(0, 80) + "...";
    }
}
