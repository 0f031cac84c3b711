package dev.distlock.spring;

import dev.distlock.spring.DistributedLock.Mode;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;

/**
 * One {@link DistributedLock} method, its annotation parsed and checked once.
 *
 * @param method the most specific method (on the bean's class), for parameter names
 * @param name the lock name
 * @param key the parsed key expression, or null for one lock per method
 * @param waitTime the wait time: the method's own, or {@code distributed-lock.wait-time}
 * @param leaseTime a fixed lease, or null for the watchdog lease
 * @param registry the registry's bean name, or empty for the only (or primary) one
 * @param skipValue what a skipped call returns
 * @param mode which lock of the key
 * @param holdAtLeast a minimum hold, or null
 * @param returns how the method returns its result, which decides how long the lock is held
 */
record LockedMethod(
        Method method,
        String name,
        Expression key,
        Duration waitTime,
        Duration leaseTime,
        OnFailure onFailure,
        String registry,
        Object skipValue,
        Mode mode,
        Duration holdAtLeast,
        Returns returns) {

    /** How a locked method hands back its work: the lock is held until that work is done. */
    enum Returns {
        /** A plain value: the work is done when the method returns. */
        VALUE,
        /** A {@code CompletionStage}: done when it completes. */
        COMPLETION_STAGE,
        /** A Reactor {@code Mono} (or a Kotlin suspend function): done when it terminates or is cancelled. */
        MONO,
        /** A Reactor {@code Flux} (or a Kotlin suspend function returning a {@code Flow}): done when it terminates or is cancelled. */
        FLUX,
        /** A Kotlin {@code Flow}: done when its collection completes, fails or is cancelled. */
        FLOW
    }

    String lockKey(Object[] args, ParameterNameDiscoverer parameterNames, BeanFactoryResolver beans) {
        return keyOf("@DistributedLock", method, name, key, args, parameterNames, beans);
    }

    /**
     * {@code name}, or {@code name + ":" + } the value of {@code key} for this call's arguments, for the key of an
     * {@code annotation} on {@code method} (the lock key of {@link DistributedLock}, the semaphore name of {@link
     * DistributedSemaphore}).
     */
    static String keyOf(
            String annotation,
            Method method,
            String name,
            Expression key,
            Object[] args,
            ParameterNameDiscoverer parameterNames,
            BeanFactoryResolver beans) {
        if (key == null) {
            return name;
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args, parameterNames);
        context.setBeanResolver(beans);
        Object value;
        try {
            value = key.getValue(context);
        } catch (RuntimeException e) {
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    key.getExpressionString(),
                    "failed: " + e + ". Check the expression against the method's arguments.",
                    e);
        }
        if (value == null) {
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    key.getExpressionString(),
                    "evaluated to null; a lock key needs a value. Check the arguments, or use the Elvis operator"
                            + " for a default (e.g. \"#id ?: 'none'\").",
                    null);
        }
        String text = value.toString();
        if (text.isBlank()) {
            // Otherwise every call would share the one lock "name:", which nobody asked for.
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    key.getExpressionString(),
                    "evaluated to a blank string; blank lock keys are refused. Validate the argument before the"
                            + " call, or give the expression a default for blank values.",
                    null);
        }
        return name + ":" + text;
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
    }
}
