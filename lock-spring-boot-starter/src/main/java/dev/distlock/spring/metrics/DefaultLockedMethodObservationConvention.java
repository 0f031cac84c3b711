package dev.distlock.spring.metrics;

import io.micrometer.common.KeyValues;

/**
 * The observation {@value #NAME}, with contextual name {@code "locked <lock name>"}. Its low-cardinality tags are
 * {@code backend} and {@code lock.name}, and its high-cardinality tag is {@code lock.key}.
 */
public class DefaultLockedMethodObservationConvention implements LockedMethodObservationConvention {

    public static final String NAME = "distlock.locked";

    public static final DefaultLockedMethodObservationConvention INSTANCE =
            new DefaultLockedMethodObservationConvention();

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockedMethodContext context) {
        return "locked " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockedMethodContext context) {
        return KeyValues.of("backend", context.getBackend(), "lock.name", context.getLockName());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockedMethodContext context) {
        return context.getKey() == null ? KeyValues.empty() : KeyValues.of("lock.key", context.getKey());
    }
}
