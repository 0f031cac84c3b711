package dev.distlock.core.leader;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link Leadership#observe} reads the leader from the server.
 *
 * @param pollInterval the pause between the end of one read and the start of the next. A change made elsewhere is
 *     told at most this plus one read later. A change made by a candidate of the same registry is read at once
 * @param callTimeout how long one read may take before the leader is told unknown. A read that does not answer is
 *     not repeated before it returns (each backend bounds its own calls)
 */
public record ObserveOptions(Duration pollInterval, Duration callTimeout) {

    public ObserveOptions {
        positive("pollInterval", pollInterval);
        positive("callTimeout", callTimeout);
    }

    /** Reads every second, and calls the leader unknown when a read takes more than 2 s. */
    public static ObserveOptions defaults() {
        return new ObserveOptions(Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    public ObserveOptions withPollInterval(Duration pollInterval) {
        return new ObserveOptions(pollInterval, callTimeout);
    }

    public ObserveOptions withCallTimeout(Duration callTimeout) {
        return new ObserveOptions(pollInterval, callTimeout);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("Observe option " + name + " must be positive, was " + value);
        }
    }
}
