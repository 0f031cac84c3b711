package dev.distlock.spring.aspect;

import dev.distlock.spring.LockStartupException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The methods that carry one annotation, each parsed once per method and target class. {@link #checkAll} fails
 * start-up on a bad annotation, and {@link #find} serves the calls.
 *
 * @param <A> the annotation
 * @param <M> what a method's annotation is parsed into
 */
public final class AnnotatedMethods<A extends Annotation, M> {

    /** Parses the annotation of one method. An {@link IllegalArgumentException} says what is wrong with it. */
    @FunctionalInterface
    public interface Parser<A, M> {
        M parse(Method method, Class<?> targetClass, A annotation);
    }

    private static final Object NONE = new Object();

    private final Class<A> type;
    private final Parser<A, M> parser;
    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();

    public AnnotatedMethods(Class<A> type, Parser<A, M> parser) {
        this.type = type;
        this.parser = parser;
    }

    /**
     * The annotation of {@code method} as called on {@code targetClass}. It is looked up on the most specific method
     * (an implementation), else on {@code method} itself (an interface's). Null when neither carries it.
     */
    public static <A extends Annotation> A annotationOf(Method method, Class<?> targetClass, Class<A> type) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, type);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
        }
        return annotation;
    }

    /** Parses every annotated method of {@code bean}'s class. A bad one fails start-up naming it. */
    public void checkAll(Object bean) {
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (targetClass.getName().startsWith("org.springframework.")) {
            return;
        }
        Map<Method, A> annotated = MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<A>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, type));
        for (Method method : annotated.keySet()) {
            try {
                find(method, targetClass);
            } catch (IllegalArgumentException e) {
                throw new LockStartupException(
                        e.getMessage(),
                        "Correct the @" + type.getSimpleName() + " annotation on " + LockedMethod.describe(method)
                                + ".",
                        e);
            }
        }
    }

    /** The parsed annotation of {@code method} as called on {@code targetClass}, or null when it has none. */
    @SuppressWarnings("unchecked")
    public M find(Method method, Class<?> targetClass) {
        Object found = cache.get(new MethodClassKey(method, targetClass));
        if (found == null) {
            Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
            found = cache.computeIfAbsent(new MethodClassKey(specific, targetClass), key -> {
                A annotation = annotationOf(specific, targetClass, type);
                return annotation == null ? NONE : parser.parse(specific, targetClass, annotation);
            });
            cache.putIfAbsent(new MethodClassKey(method, targetClass), found);
        }
        return found == NONE ? null : (M) found;
    }
}
