package dev.distlock.spring.aspect;

import dev.distlock.core.DurationText;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock.OnFailure;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.backend.PropertyChecks;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The rules for the attributes {@code @DistributedLock} and {@code @DistributedSemaphore} share (key, durations,
 * onFailure, registry), so that both annotations are read and refused the same way.
 */
public final class LockAnnotationParser {

    private final Environment environment;
    private final BeanFactory beanFactory;
    /** {@code distributed-lock.wait-time}, for methods that set no waitTime. */
    private final Duration defaultWaitTime;

    private final KeyExpressions keys;

    public LockAnnotationParser(Environment environment, BeanFactory beanFactory) {
        this.environment = environment;
        this.beanFactory = beanFactory;
        this.defaultWaitTime = PropertyChecks.notNegative(
                "wait-time",
                Binder.get(environment)
                        .bind(DistributedLockProperties.PREFIX + ".wait-time", Duration.class)
                        .orElseGet(() -> new DistributedLockProperties().getWaitTime()));
        this.keys = new KeyExpressions(beanFactory);
    }

    /** A method as messages name it, {@code Class.method()}. */
    public static String describe(Method method) {
        return LockedMethod.describe(method);
    }

    /** The parsed key expression, or null when {@code source} is blank. */
    public Expression key(String source, Method method, String where) {
        return source.isBlank() ? null : keys.parse(source, method, where);
    }

    /** The method's waitTime, or {@code distributed-lock.wait-time} when blank. */
    public Duration waitTime(String text, String where) {
        return text.isBlank() ? defaultWaitTime : duration(text, "waitTime", where, true);
    }

    /** A duration attribute ({@code 500ms}, {@code PT1S}, {@code ${...}}), or null when blank. */
    public Duration duration(String text, String attribute, String where, boolean zeroAllowed) {
        if (text.isBlank()) {
            return null;
        }
        Duration value;
        try {
            value = DurationStyle.detectAndParse(environment.resolveRequiredPlaceholders(text.trim()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    where + " has " + attribute + " = \"" + text + "\", which is not a duration (e.g. 500ms, 2s,"
                            + " PT1S, or a ${placeholder} that resolves to one): " + e.getMessage(),
                    e);
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(
                    where + " has " + attribute + " = \"" + text + "\" (" + DurationText.format(value)
                            + "); it must be " + (zeroAllowed ? "zero or positive." : "positive."));
        }
        return value;
    }

    /** DEFAULT resolved (SKIP for {@code @Scheduled} methods, else THROW), refusing SKIP on a primitive result. */
    public OnFailure onFailure(OnFailure declared, Method method, String where) {
        OnFailure onFailure = declared;
        if (onFailure == OnFailure.DEFAULT) {
            onFailure = AnnotatedElementUtils.hasAnnotation(method, Scheduled.class) ? OnFailure.SKIP : OnFailure.THROW;
        }
        Class<?> returnType = method.getReturnType();
        if (onFailure == OnFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new IllegalArgumentException(where + " uses onFailure = SKIP, but the method returns "
                    + returnType.getName() + ": a skipped call has no value to return. Return a wrapper type or"
                    + " Optional, or use onFailure = THROW.");
        }
        return onFailure;
    }

    /** The registry's bean name, trimmed. It is refused when no bean has it. */
    public String registry(String declared, String where) {
        String registry = declared.trim();
        if (!registry.isEmpty() && !beanFactory.containsBean(registry)) {
            throw new IllegalArgumentException(where + " names registry '" + registry
                    + "', but there is no bean of that name. Name a " + LockRegistry.class.getSimpleName()
                    + " bean, or leave registry empty to use the only one.");
        }
        return registry;
    }

    /** True when the method returns a plain value (not asynchronous or reactive work). */
    public static boolean returnsPlainValue(Method method, String where) {
        return ReturnTypes.classify(method, where) == LockedMethod.Returns.VALUE;
    }

    /** What a skipped call of a method returning {@code returnType} returns. */
    public static Object skipValue(Class<?> returnType) {
        if (returnType == Optional.class) {
            return Optional.empty();
        }
        if (returnType == OptionalInt.class) {
            return OptionalInt.empty();
        }
        if (returnType == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (returnType == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        return null;
    }

    /**
     * {@code name}, or {@code name + ":" + } the value of the key for this call's arguments.
     *
     * @param annotation the annotation the key belongs to, for messages (e.g. {@code @DistributedSemaphore})
     */
    public String keyOf(String annotation, MethodAttributes attributes, Object[] args) {
        return keys.key(annotation, attributes, args);
    }

    Expression parseKey(String source, Method method, String where) {
        return keys.parse(source, method, where);
    }

    List<String> lockKeys(LockedMethod locked, Object[] args) {
        return keys.keys(locked, args);
    }
}
