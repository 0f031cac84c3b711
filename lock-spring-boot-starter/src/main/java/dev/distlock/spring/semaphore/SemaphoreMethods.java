package dev.distlock.spring.semaphore;

import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.aspect.AnnotatedMethods;
import dev.distlock.spring.aspect.LockAnnotationParser;
import dev.distlock.spring.aspect.MethodAttributes;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.expression.Expression;

/**
 * Parses each {@link DistributedSemaphore} method once and declares its semaphore to {@link DistributedSemaphores}. A
 * bad annotation fails start-up rather than a call.
 */
final class SemaphoreMethods implements BeanPostProcessor {

    static final String SEMAPHORE = "@DistributedSemaphore";

    private final LockAnnotationParser parser;
    private final DistributedSemaphores semaphores;
    private final AnnotatedMethods<DistributedSemaphore, SemaphoreMethod> methods =
            new AnnotatedMethods<>(DistributedSemaphore.class, this::parse);

    SemaphoreMethods(LockAnnotationParser parser, DistributedSemaphores semaphores) {
        this.parser = parser;
        this.semaphores = semaphores;
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
        return parser.keyOf(SEMAPHORE, method.attributes(), args);
    }

    private SemaphoreMethod parse(Method method, Class<?> targetClass, DistributedSemaphore annotation) {
        String where = SEMAPHORE + " on " + LockAnnotationParser.describe(method);
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
        if (!LockAnnotationParser.returnsPlainValue(method, where)) {
            throw new IllegalArgumentException(
                    where + " returns " + method.getReturnType().getSimpleName()
                            + " (asynchronous or reactive): @DistributedSemaphore supports methods that return a plain value"
                            + " only, since permits given back on return would limit nothing. Take the permits inside the"
                            + " method with LeasedSemaphore.acquireAsync instead.");
        }
        Expression key = parser.key(annotation.key(), method, where);
        Duration waitTime = parser.waitTime(annotation.waitTime(), where);
        Duration leaseTime = parser.duration(annotation.leaseTime(), "leaseTime", where, false);
        MethodAttributes attributes = new MethodAttributes(
                method,
                name,
                key,
                waitTime,
                leaseTime,
                parser.onFailure(annotation.onFailure(), method, where),
                parser.registry(annotation.registry(), where),
                LockAnnotationParser.skipValue(method.getReturnType()));
        SemaphoreMethod parsed = new SemaphoreMethod(attributes, permits, perCall);
        semaphores.declare(parsed, where);
        return parsed;
    }
}
