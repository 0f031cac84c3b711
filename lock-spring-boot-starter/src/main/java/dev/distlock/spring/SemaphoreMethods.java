package dev.distlock.spring;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Parses each {@link DistributedSemaphore} method once, with {@link LockedMethods}' key and duration rules, and
 * declares its semaphore to {@link DistributedSemaphores}. As a bean post-processor it parses every annotated method
 * at start-up, so a bad annotation fails start-up rather than a call.
 */
final class SemaphoreMethods implements BeanPostProcessor {

    private final LockedMethods lockedMethods;
    private final DistributedSemaphores semaphores;
    private final BeanFactory beanFactory;
    private final AnnotatedMethods<DistributedSemaphore, SemaphoreMethod> methods =
            new AnnotatedMethods<>(DistributedSemaphore.class, this::parse);

    SemaphoreMethods(LockedMethods lockedMethods, DistributedSemaphores semaphores, BeanFactory beanFactory) {
        this.lockedMethods = lockedMethods;
        this.semaphores = semaphores;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        methods.checkAll(bean);
        return bean;
    }

    static boolean isAnnotated(Method method, Class<?> targetClass) {
        return AnnotatedMethods.annotationOf(method, targetClass, DistributedSemaphore.class) != null;
    }

    /** The parsed annotation of {@code method} as called on {@code targetClass}, or null when it has none. */
    SemaphoreMethod find(Method method, Class<?> targetClass) {
        return methods.find(method, targetClass);
    }

    /** The semaphore name of one call. */
    String semaphoreName(SemaphoreMethod method, Object[] args) {
        return lockedMethods.semaphoreName(method, args);
    }

    private SemaphoreMethod parse(Method method, Class<?> targetClass, DistributedSemaphore annotation) {
        String where = "@DistributedSemaphore on " + LockedMethod.describe(method);
        String name = annotation.name().trim();
        if (name.isEmpty()) {
            throw new IllegalArgumentException(where + " has no name; name the resource its permits limit.");
        }
        int permits = annotation.permits();
        if (permits < 1 || permits > LeasedSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException(where + " declares " + permits + " permits; a semaphore has 1 to "
                    + LeasedSemaphore.MAX_PERMITS + ".");
        }
        int perCall = annotation.permitsPerCall();
        if (perCall < 1 || perCall > permits) {
            throw new IllegalArgumentException(where + " asks for " + perCall + " permits per call of a semaphore of "
                    + permits + "; ask for 1 to " + permits + ".");
        }
        LockedMethod.Returns returns = ReturnTypes.classify(method, where);
        if (returns != LockedMethod.Returns.VALUE) {
            throw new IllegalArgumentException(
                    where + " returns " + method.getReturnType().getSimpleName()
                            + " (asynchronous or reactive): @DistributedSemaphore supports methods that return a plain value"
                            + " only, since permits given back on return would limit nothing. Take the permits inside the"
                            + " method with LeasedSemaphore.acquireAsync instead.");
        }
        Expression key = annotation.key().isBlank() ? null : lockedMethods.parseKey(annotation.key(), method, where);
        Duration waitTime = annotation.waitTime().isBlank()
                ? lockedMethods.defaultWaitTime()
                : lockedMethods.duration(annotation.waitTime(), "waitTime", where, true);
        Duration leaseTime = lockedMethods.duration(annotation.leaseTime(), "leaseTime", where, false);
        Class<?> returnType = method.getReturnType();
        OnFailure onFailure = annotation.onFailure();
        if (onFailure == OnFailure.DEFAULT) {
            onFailure = AnnotatedElementUtils.hasAnnotation(method, Scheduled.class) ? OnFailure.SKIP : OnFailure.THROW;
        }
        if (onFailure == OnFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new IllegalArgumentException(where + " uses onFailure = SKIP, but the method returns "
                    + returnType.getName() + ": a skipped call has no value to return. Return a wrapper type or"
                    + " Optional, or use onFailure = THROW.");
        }
        String registry = annotation.registry().trim();
        if (!registry.isEmpty() && !beanFactory.containsBean(registry)) {
            throw new IllegalArgumentException(where + " names registry '" + registry
                    + "', but there is no bean of that name. Name a " + LockRegistry.class.getSimpleName()
                    + " bean, or leave registry empty to use the only one.");
        }
        SemaphoreMethod parsed = new SemaphoreMethod(
                method,
                name,
                permits,
                key,
                perCall,
                waitTime,
                leaseTime,
                onFailure,
                registry,
                LockedMethods.skipValue(returnType));
        semaphores.declare(parsed, where);
        return parsed;
    }
}
