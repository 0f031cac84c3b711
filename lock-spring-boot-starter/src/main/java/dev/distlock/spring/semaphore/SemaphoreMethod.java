package dev.distlock.spring.semaphore;

import dev.distlock.spring.DistributedLock.OnFailure;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.aspect.MethodAttributes;
import java.lang.reflect.Method;
import java.time.Duration;

/**
 * One {@link DistributedSemaphore} method, its annotation parsed and checked once.
 *
 * @param attributes what it shares with lock methods (name, key, wait, lease per permit, onFailure, registry)
 * @param permits the semaphore's permit count
 * @param permitsPerCall the permits one call holds
 */
record SemaphoreMethod(MethodAttributes attributes, int permits, int permitsPerCall) {

    Method method() {
        return attributes.method();
    }

    String name() {
        return attributes.name();
    }

    boolean keyed() {
        return attributes.key() != null;
    }

    Duration waitTime() {
        return attributes.waitTime();
    }

    Duration leaseTime() {
        return attributes.leaseTime();
    }

    OnFailure onFailure() {
        return attributes.onFailure();
    }

    String registry() {
        return attributes.registry();
    }

    Object skipValue() {
        return attributes.skipValue();
    }
}
