package dev.distlock.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a {@code @DistributedLock} method running under its lock.
 * Define a bean of this type to replace {@link DefaultLockedMethodObservationConvention}.
 */
public interface LockedMethodObservationConvention extends ObservationConvention<LockedMethodContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockedMethodContext;
    }
}
