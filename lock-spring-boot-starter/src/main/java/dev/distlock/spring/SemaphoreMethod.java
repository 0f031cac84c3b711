package dev.distlock.spring;

import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.expression.Expression;

/**
 * One {@link DistributedSemaphore} method, its annotation parsed and checked once.
 *
 * @param method the most specific method (on the bean's class), for parameter names
 * @param name the semaphore's name as declared (without the key's value)
 * @param permits the semaphore's permit count
 * @param key the parsed key expression, or null for one semaphore per method
 * @param permitsPerCall the permits one call holds
 * @param waitTime the wait time: the method's own, or {@code distributed-lock.wait-time}
 * @param leaseTime a fixed lease per permit, or null for the watchdog lease
 * @param onFailure what a call does when the permits did not come free in time (never DEFAULT)
 * @param registry the registry's bean name, or empty for the only (or primary) one
 * @param skipValue what a skipped call returns
 */
record SemaphoreMethod(
        Method method,
        String name,
        int permits,
        Expression key,
        int permitsPerCall,
        Duration waitTime,
        Duration leaseTime,
        OnFailure onFailure,
        String registry,
        Object skipValue) {}
