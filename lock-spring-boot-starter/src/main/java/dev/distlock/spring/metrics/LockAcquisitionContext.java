package dev.distlock.spring.metrics;

import dev.distlock.core.LockObserver.Outcome;
import java.lang.reflect.Method;

/** The wait of a {@code @DistributedLock} method for its lock. */
public class LockAcquisitionContext extends LockObservationContext {

    private Outcome outcome;

    public LockAcquisitionContext(Method method) {
        super(method);
    }

    /** How the acquisition ended, or null when it never reached the registry (e.g. a bad key). */
    public Outcome getOutcome() {
        return outcome;
    }

    void setOutcome(Outcome outcome) {
        this.outcome = outcome;
    }
}
