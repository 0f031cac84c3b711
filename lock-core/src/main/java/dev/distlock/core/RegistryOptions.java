package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings every registry shares, whatever its backend.
 *
 * @param leaseTime the lease of holds renewed by the watchdog (renewed every third of it)
 * @param keyPrefix prepended to every key, to keep applications that share a backend apart
 */
public record RegistryOptions(Duration leaseTime, String keyPrefix) {

    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    public RegistryOptions {
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
    }

    public static RegistryOptions defaults() {
        return new RegistryOptions(DEFAULT_LEASE_TIME, "");
    }

    public RegistryOptions withLeaseTime(Duration leaseTime) {
        return new RegistryOptions(leaseTime, keyPrefix);
    }

    public RegistryOptions withKeyPrefix(String keyPrefix) {
        return new RegistryOptions(leaseTime, keyPrefix);
    }
}
