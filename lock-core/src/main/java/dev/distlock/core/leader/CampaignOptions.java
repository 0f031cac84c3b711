package dev.distlock.core.leader;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Leadership} campaigns.
 *
 * @param checkInterval how often a leader checks its hold besides being told of a lost lease; it
 *     bounds how late {@code revoked} comes when the hold ends without a loss notice (the registry
 *     was closed)
 * @param rejoinDelay how long a candidate that resigned stays out before campaigning again, so
 *     that a waiting candidate takes over
 * @param retryDelay the pause after the backend failed an attempt, before the next one
 */
public record CampaignOptions(Duration checkInterval, Duration rejoinDelay, Duration retryDelay) {

    public CampaignOptions {
        positive("checkInterval", checkInterval);
        positive("rejoinDelay", rejoinDelay);
        positive("retryDelay", retryDelay);
    }

    /** Checks every 100 ms, stays out 1 s after resigning, retries after 1 s. */
    public static CampaignOptions defaults() {
        return new CampaignOptions(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    public CampaignOptions withCheckInterval(Duration checkInterval) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay);
    }

    public CampaignOptions withRejoinDelay(Duration rejoinDelay) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay);
    }

    public CampaignOptions withRetryDelay(Duration retryDelay) {
        return new CampaignOptions(checkInterval, rejoinDelay, retryDelay);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("Campaign option " + name + " must be positive, was " + value);
        }
    }
}
