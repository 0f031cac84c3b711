package dev.distlock.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a {@code @DistributedLock} method's wait for its lock. Define a
 * bean of this type to replace {@link DefaultLockAcquisitionObservationConvention}.
 */
public interface LockAcquisitionObservationConvention extends ObservationConvention<LockAcquisitionContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockAcquisitionContext;
    }
}
