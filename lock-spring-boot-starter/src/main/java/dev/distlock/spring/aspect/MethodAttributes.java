package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.expression.Expression;

/**
 * What {@code @DistributedLock} and {@code @DistributedSemaphore} methods share, parsed and checked once.
 *
 * @param method the most specific method (on the bean's class), for parameter names
 * @param name the lock or semaphore name as declared (without the key's value)
 * @param key the parsed key expression, or null for one lock or semaphore per method
 * @param waitTime the method's own wait time, or {@code distributed-lock.wait-time}
 * @param leaseTime a fixed lease, or null for the watchdog lease
 * @param onFailure what a call does when it got nothing in time (never DEFAULT)
 * @param registry the registry's bean name, or empty for the only (or primary) one
 * @param skipValue what a skipped call returns
 */
public record MethodAttributes(
        Method method,
        String name,
        Expression key,
        Duration waitTime,
        Duration leaseTime,
        OnFailure onFailure,
        String registry,
        Object skipValue) {}
