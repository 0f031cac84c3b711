package dev.distlock.spring.metrics;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The observation {@value #NAME}, with contextual name {@code "lock wait <lock name>"}. Its low-cardinality tags are
 * {@code backend}, {@code lock.name} and {@code outcome}, and its high-cardinality tag is {@code lock.key}.
 */
public class DefaultLockAcquisitionObservationConvention implements LockAcquisitionObservationConvention {

    public static final String NAME = "distlock.wait";

    public static final DefaultLockAcquisitionObservationConvention INSTANCE =
            new DefaultLockAcquisitionObservationConvention();

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockAcquisitionContext context) {
        return "lock wait " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
        String outcome = context.getOutcome() == null
                ? LockObservationContext.UNKNOWN
                : context.getOutcome().name().toLowerCase(Locale.ROOT);
        return KeyValues.of(
                KeyValue.of("backend", context.getBackend()),
                KeyValue.of("lock.name", context.getLockName()),
                KeyValue.of("outcome", outcome));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockAcquisitionContext context) {
        return context.getKey() == null ? KeyValues.empty() : KeyValues.of("lock.key", context.getKey());
    }
}
