package dev.distlock.spring;

import dev.distlock.core.RegistryOptions;
import java.time.Duration;

/** Checks the {@code distributed-lock.*} values the registries use, naming the property to fix. */
final class PropertyChecks {

    private PropertyChecks() {}

    /** The options every registry gets; fails when a shared property is out of range. */
    static RegistryOptions registryOptions(DistributedLockProperties properties) {
        positive("lease-time", properties.getLeaseTime());
        Duration waitTime = properties.getWaitTime();
        if (waitTime == null || waitTime.isNegative()) {
            throw invalid("wait-time", waitTime, "must be zero or positive, e.g. 0s or 500ms");
        }
        String keyPrefix = properties.getKeyPrefix() == null ? "" : properties.getKeyPrefix();
        return new RegistryOptions(properties.getLeaseTime(), keyPrefix);
    }

    static Duration positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(property, value, "must be positive, e.g. 30s");
        }
        return value;
    }

    static String notBlank(String property, String value) {
        if (value == null || value.isBlank()) {
            throw invalid(property, value, "must not be empty");
        }
        return value;
    }

    static IllegalStateException invalid(String property, Object value, String rule) {
        return new IllegalStateException(
                DistributedLockProperties.PREFIX + "." + property + " " + rule + ", was '" + value + "'.");
    }
}
