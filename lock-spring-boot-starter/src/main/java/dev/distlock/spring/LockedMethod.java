package dev.distlock.spring;

import dev.distlock.spring.DistributedLock.Mode;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * @param keys the parsed expressions of {@link DistributedLock#keys()}, or empty when the method takes one key
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
        List<Expression> keys,
        Duration waitTime,
        Duration leaseTime,
        OnFailure onFailure,
        String registry,
        Object skipValue,
        Mode mode,
        Duration holdAtLeast,
        Returns returns) {

    private static final String LOCK = "@DistributedLock";

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

    /** True when the method holds several keys ({@link DistributedLock#keys()}). */
    boolean multiKey() {
        return !keys.isEmpty();
    }

    String lockKey(Object[] args, ParameterNameDiscoverer parameterNames, BeanFactoryResolver beans) {
        return keyOf(LOCK, method, name, key, args, parameterNames, beans);
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
        Object value = evaluate(annotation, method, key, context(method, args, parameterNames, beans));
        return name + ":" + text(annotation, method, key, value, "evaluated to");
    }

    /**
     * The lock keys of a {@link DistributedLock#keys()} method, each composed as the single key is: every
     * expression's value, or each element of a value that is a collection or an array.
     */
    List<String> lockKeys(Object[] args, ParameterNameDiscoverer parameterNames, BeanFactoryResolver beans) {
        MethodBasedEvaluationContext context = context(method, args, parameterNames, beans);
        List<String> lockKeys = new ArrayList<>();
        for (Expression expression : keys) {
            Object value = evaluate(LOCK, method, expression, context);
            if (value != null && value.getClass().isArray()) {
                value = arrayElements(value);
            }
            if (value instanceof Collection<?> elements) {
                if (elements.isEmpty()) {
                    throw new LockKeyException(
                            describe(method),
                            expression.getExpressionString(),
                            "evaluated to an empty collection; keys needs at least one key. Check the arguments,"
                                    + " or skip the call when there is nothing to lock.",
                            null);
                }
                for (Object element : elements) {
                    lockKeys.add(name + ":" + text(LOCK, method, expression, element, "gave an element that is"));
                }
            } else {
                lockKeys.add(name + ":" + text(LOCK, method, expression, value, "evaluated to"));
            }
        }
        return lockKeys;
    }

    private static MethodBasedEvaluationContext context(
            Method method, Object[] args, ParameterNameDiscoverer parameterNames, BeanFactoryResolver beans) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args, parameterNames);
        context.setBeanResolver(beans);
        return context;
    }

    private static Object evaluate(
            String annotation, Method method, Expression expression, MethodBasedEvaluationContext context) {
        try {
            return expression.getValue(context);
        } catch (RuntimeException e) {
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    expression.getExpressionString(),
                    "failed: " + e + ". Check the expression against the method's arguments.",
                    e);
        }
    }

    private static String text(String annotation, Method method, Expression expression, Object value, String what) {
        if (value == null) {
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    expression.getExpressionString(),
                    what + " null; a lock key needs a value. Check the arguments, or use the Elvis operator"
                            + " for a default (e.g. \"#id ?: 'none'\").",
                    null);
        }
        String text = value.toString();
        if (text.isBlank()) {
            // Otherwise every call would share the one lock "name:", which nobody asked for.
            throw new LockKeyException(
                    annotation,
                    describe(method),
                    expression.getExpressionString(),
                    what + " a blank string; blank lock keys are refused. Validate the argument before the"
                            + " call, or give the expression a default for blank values.",
                    null);
        }
        return text;
    }

    private static List<Object> arrayElements(Object array) {
        int length = Array.getLength(array);
        List<Object> elements = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            elements.add(Array.get(array, i));
        }
        return elements;
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
    }
}
