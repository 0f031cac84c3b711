package dev.distlock.spring.backend;

import dev.distlock.core.DurationText;
import dev.distlock.core.RegistryOptions;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.LockStartupException;
import java.time.Duration;

/**
 * Checks the {@code distributed-lock.*} values, each once where it is read, and fails start-up
 * naming the property to fix.
 */
public final class PropertyChecks {

    private PropertyChecks() {}

    /** The options every registry gets. Fails when a shared property is out of range. */
    static RegistryOptions registryOptions(DistributedLockProperties properties) {
        positive("lease-time", properties.getLeaseTime());
        String keyPrefix = properties.getKeyPrefix() == null ? "" : properties.getKeyPrefix();
        String holderName = properties.getHolderName() == null
                ? ""
                : properties.getHolderName().trim();
        return new RegistryOptions(
                properties.getLeaseTime(),
                keyPrefix,
                holderName,
                properties.getWriterGrace() == null ? null : notNegative("writer-grace", properties.getWriterGrace()),
                positive("answer-budget", properties.getAnswerBudget()));
    }

    static Duration positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(property, DurationText.format(value), "must be positive, e.g. 30s");
        }
        return value;
    }

    public static Duration notNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw invalid(property, DurationText.format(value), "must be zero or positive, e.g. 0s or 500ms");
        }
        return value;
    }

    static String notBlank(String property, String value) {
        if (value == null || value.isBlank()) {
            throw invalid(property, value, "must not be empty");
        }
        return value;
    }

    /** {@code property} is relative to {@code distributed-lock.}. */
    static LockStartupException invalid(String property, Object value, String rule) {
        String name = DistributedLockProperties.PREFIX + "." + property;
        return new LockStartupException(
                name + " " + rule + ", was '" + value + "'.",
                "Update " + name + " in your application's configuration.");
    }
}
