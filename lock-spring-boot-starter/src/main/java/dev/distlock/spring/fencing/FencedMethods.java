package dev.distlock.spring.fencing;

import dev.distlock.core.LockHandle;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.ClassUtils;

/** Finds {@link Fenced} methods and parses each annotation once. */
final class FencedMethods {

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Mono", FencedMethods.class.getClassLoader());

    private final Map<MethodClassKey, Optional<FencedMethod>> cache = new ConcurrentHashMap<>();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final BeanFactoryResolver beanResolver;

    FencedMethods(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    /** How a fenced method hands back its work, which decides when the check runs. */
    enum Returns {
        VALUE,
        COMPLETION_STAGE,
        MONO,
        FLUX
    }

    /**
     * One {@link Fenced} method.
     *
     * @param transactional whether the method itself is {@code @Transactional}, so that its check must
     *     find the transaction begun
     */
    record FencedMethod(
            Method method,
            String name,
            Expression key,
            Fenced.Access access,
            String store,
            Returns returns,
            boolean transactional) {

        String describe() {
            return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
        }
    }

    static boolean isAnnotated(Method method, Class<?> targetClass) {
        return annotation(method, targetClass) != null;
    }

    FencedMethod find(Method method, Class<?> targetClass) {
        return cache.computeIfAbsent(new MethodClassKey(method, targetClass), k -> {
                    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
                    Fenced annotation = annotation(specific, targetClass);
                    return annotation == null
                            ? Optional.empty()
                            : Optional.of(parse(specific, targetClass, annotation));
                })
                .orElse(null);
    }

    /** The resource the call writes, from name and key, or the hold's lock key. */
    String resource(FencedMethod fenced, Object[] args, LockHandle handle) {
        if (fenced.key() == null) {
            return fenced.name().isEmpty() ? handle.key() : fenced.name();
        }
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(null, fenced.method(), args, parameterNames);
        context.setBeanResolver(beanResolver);
        Object value = fenced.key().getValue(context);
        if (value == null) {
            throw new IllegalArgumentException(
                    "The @Fenced key '" + fenced.key().getExpressionString() + "' of " + fenced.describe()
                            + " evaluated to null; a fenced resource needs a name.");
        }
        return fenced.name().isEmpty() ? String.valueOf(value) : fenced.name() + ":" + value;
    }

    private FencedMethod parse(Method method, Class<?> targetClass, Fenced annotation) {
        Expression key = null;
        if (!annotation.key().isBlank()) {
            try {
                key = parser.parseExpression(annotation.key());
            } catch (ParseException e) {
                throw new IllegalStateException(
                        "The @Fenced key '" + annotation.key() + "' of "
                                + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                                + "() is not a valid SpEL expression: " + e.getMessage(),
                        e);
            }
        }
        boolean transactional = AnnotatedElementUtils.hasAnnotation(method, Transactional.class)
                || (targetClass != null && AnnotatedElementUtils.hasAnnotation(targetClass, Transactional.class));
        return new FencedMethod(
                method,
                annotation.name(),
                key,
                annotation.access(),
                annotation.store(),
                returns(method.getReturnType()),
                transactional);
    }

    private static Returns returns(Class<?> type) {
        if (CompletionStage.class.isAssignableFrom(type)) {
            return Returns.COMPLETION_STAGE;
        }
        if (REACTOR && reactor.core.publisher.Mono.class.isAssignableFrom(type)) {
            return Returns.MONO;
        }
        if (REACTOR && reactor.core.publisher.Flux.class.isAssignableFrom(type)) {
            return Returns.FLUX;
        }
        return Returns.VALUE;
    }

    private static Fenced annotation(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        Fenced fenced = AnnotatedElementUtils.findMergedAnnotation(specific, Fenced.class);
        return fenced != null ? fenced : AnnotatedElementUtils.findMergedAnnotation(method, Fenced.class);
    }
}
