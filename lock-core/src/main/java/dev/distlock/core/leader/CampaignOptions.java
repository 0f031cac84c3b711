package dev.distlock.core.leader;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link Leadership} campaigns.
 *
 * @param checkInterval how often a leader checks its hold besides being told of a lost lease. It
 *     bounds how late {@code revoked} comes when the hold ends without a loss notice (the registry
 *     was closed)
 * @param rejoinDelay how long a candidate that resigned stays out before campaigning again, so
 *     that a waiting candidate takes over
 * @param retryDelay the pause after the backend failed an attempt, before the next one
 * @param value what the candidate publishes with each of its terms (its URL, say), recorded on the server with the
 *     term's hold so that every instance reads it as {@link Leader#value()}. Empty for nothing. Printable ASCII, at
 *     most {@link dev.distlock.core.LockHolder#MAX_NOTE_LENGTH} characters. Checked when the campaign starts
 */
public record CampaignOptions(
        Duration checkInterval, Duration rejoinDelay, Duration retryDelay, Optional<String> value) {

    public CampaignOptions {
        positive("checkInterval", checkInterval);
        positive("rejoinDelay", rejoinDelay);
        positive("retryDelay", retryDelay);
        Objects.requireNonNull(value, "value");
    }

    /** Options that publish no value. */
    public CampaignOptions(Duration checkInterval, Duration rejoinDelay, Duration retryDelay) {
        this(checkInterval, rejoinDelay, retryDelay, Optional.empty());
    }

    /** Checks every 100 ms, stays out 1 s after resigning, retries after 1 s, publishes no value. */
    public static CampaignOptions defaults() {
        return new CampaignOptions(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    public CampaignOptions withCheckInterval(Duration checkInterval) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay, value);
    }

    public CampaignOptions withRejoinDelay(Duration rejoinDelay) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay, value);
    }

    public CampaignOptions withRetryDelay(Duration retryDelay) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay, value);
    }

    /**
     * These options, publishing {@code value} with each term (see {@link #value()}). Null for none. The value is
     * fixed per term. See {@link Leadership#changeValue(String)}.
     */
    public CampaignOptions withValue(String value) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay, Optional.ofNullable(value));
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("Campaign option " + name + " must be positive, was " + value);
        }
    }
}
