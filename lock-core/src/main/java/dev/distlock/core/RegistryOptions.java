package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings every registry shares, whatever its backend.
 *
 * @param leaseTime the lease of holds renewed by the watchdog (renewed every third of it)
 * @param keyPrefix prepended to every key, to keep applications that share a backend apart
 * @param applicationName names this application in the holder description stored with each
 *     lock on the server (with host, pid and thread), so an operator can tell who holds a key
 */
public record RegistryOptions(Duration leaseTime, String keyPrefix, String applicationName) {

    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    public RegistryOptions {
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(applicationName, "applicationName");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime);
        }
    }

    public RegistryOptions(Duration leaseTime, String keyPrefix) {
        this(leaseTime, keyPrefix, "");
    }

    public static RegistryOptions defaults() {
        return new RegistryOptions(DEFAULT_LEASE_TIME, "", "");
    }

    public RegistryOptions withLeaseTime(Duration leaseTime) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName);
    }

    public RegistryOptions withKeyPrefix(String keyPrefix) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName);
    }

    public RegistryOptions withApplicationName(String applicationName) {
        return new RegistryOptions(leaseTime, keyPrefix, applicationName);
    }
}
