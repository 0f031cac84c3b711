package dev.distlock.spring.metrics;

import java.lang.reflect.Method;

/** A {@code @DistributedLock} method running under its lock. */
public class LockedMethodContext extends LockObservationContext {

    public LockedMethodContext(Method method) {
        super(method);
    }
}
