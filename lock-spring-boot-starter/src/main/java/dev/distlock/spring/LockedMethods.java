package dev.distlock.spring;

import dev.distlock.core.DurationText;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock.Mode;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;

/**
 * Parses each {@link DistributedLock} method once and keeps the result. As a bean post-processor
 * it parses every annotated method of every bean at start-up, so that a bad key expression, an
 * unresolvable duration or SKIP on a primitive return type fails start-up rather than a call.
 */
final class LockedMethods implements BeanPostProcessor {

    private final Environment environment;
    /** {@code distributed-lock.wait-time}, for methods that set no waitTime. */
    private final Duration defaultWaitTime;

    private final BeanFactory beanFactory;
    private final BeanFactoryResolver beanResolver;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final AnnotatedMethods<DistributedLock, LockedMethod> methods =
            new AnnotatedMethods<>(DistributedLock.class, this::parse);

    LockedMethods(Environment environment, BeanFactory beanFactory) {
        this.environment = environment;
        this.defaultWaitTime = PropertyChecks.notNegative(
                "wait-time",
                Binder.get(environment)
                        .bind(DistributedLockProperties.PREFIX + ".wait-time", Duration.class)
                        .orElseGet(() -> new DistributedLockProperties().getWaitTime()));
        this.beanFactory = beanFactory;
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        methods.checkAll(bean);
        return bean;
    }

    /** True when the method carries {@link DistributedLock}, on the class or an interface it implements. */
    static boolean isAnnotated(Method method, Class<?> targetClass) {
        return AnnotatedMethods.annotationOf(method, targetClass, DistributedLock.class) != null;
    }

    /** The parsed annotation of {@code method} as called on {@code targetClass}, or null when it has none. */
    LockedMethod find(Method method, Class<?> targetClass) {
        return methods.find(method, targetClass);
    }

    String lockKey(LockedMethod locked, Object[] args) {
        return locked.lockKey(args, parameterNames, beanResolver);
    }

    /** The semaphore name of one call of a {@link DistributedSemaphore} method. */
    String semaphoreName(SemaphoreMethod method, Object[] args) {
        return LockedMethod.keyOf(
                "@DistributedSemaphore",
                method.method(),
                method.name(),
                method.key(),
                args,
                parameterNames,
                beanResolver);
    }

    /** {@code distributed-lock.wait-time}, for methods that set no waitTime. */
    Duration defaultWaitTime() {
        return defaultWaitTime;
    }

    List<String> lockKeys(LockedMethod locked, Object[] args) {
        return locked.lockKeys(args, parameterNames, beanResolver);
    }

    private LockedMethod parse(Method method, Class<?> targetClass, DistributedLock annotation) {
        String where = "@DistributedLock on " + LockedMethod.describe(method);
        Class<?> userClass = ClassUtils.getUserClass(targetClass != null ? targetClass : method.getDeclaringClass());
        String name = annotation.name().isBlank()
                ? userClass.getSimpleName() + "." + method.getName()
                : annotation.name().trim();
        Expression key = annotation.key().isBlank() ? null : parseKey(annotation.key(), method, where);
        Duration waitTime = annotation.waitTime().isBlank()
                ? defaultWaitTime
                : duration(annotation.waitTime(), "waitTime", where, true);
        Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", where, false);
        Duration holdAtLeast = duration(annotation.holdAtLeast(), "holdAtLeast", where, false);
        Class<?> returnType = method.getReturnType();
        LockedMethod.Returns returns = ReturnTypes.classify(method, where);
        List<Expression> keys = parseKeys(annotation, method, where, returns);
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
        return new LockedMethod(
                method,
                name,
                key,
                keys,
                waitTime,
                leaseTime,
                onFailure,
                registry,
                skipValue(returnType),
                annotation.mode(),
                holdAtLeast,
                returns);
    }

    /** The expressions of {@link DistributedLock#keys()}, checked against the rest of the annotation. */
    private List<Expression> parseKeys(
            DistributedLock annotation, Method method, String where, LockedMethod.Returns returns) {
        String[] sources = annotation.keys();
        if (sources.length == 0) {
            return List.of();
        }
        if (!annotation.key().isBlank()) {
            throw new IllegalArgumentException(where + " sets both key = \"" + annotation.key() + "\" and keys = "
                    + List.of(sources) + ". Use key for one lock, or keys for several (e.g. keys = {\"#from\","
                    + " \"#to\"}, or keys = \"#ids\" for a collection).");
        }
        if (annotation.mode() != Mode.EXCLUSIVE) {
            throw new IllegalArgumentException(where + " takes several keys (keys) with mode = " + annotation.mode()
                    + ", which is not supported with keys: a multi-key lock takes the keys' exclusive locks. Use"
                    + " mode = EXCLUSIVE, or one key.");
        }
        if (returns != LockedMethod.Returns.VALUE) {
            Class<?>[] parameters = method.getParameterTypes();
            boolean suspend = parameters.length > 0
                    && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
            throw new IllegalArgumentException(where + " takes several keys (keys) and "
                    + (suspend
                            ? "is a Kotlin suspend function"
                            : "returns " + method.getReturnType().getSimpleName())
                    + ", which is not supported with keys: only methods"
                    + " that return a plain value can hold several keys (not CompletionStage, Mono, Flux, Kotlin"
                    + " suspend functions or Flow). Return a plain value, or take the keys inside the method with"
                    + " MultiLock.acquireAsync.");
        }
        List<Expression> keys = new ArrayList<>(sources.length);
        for (int i = 0; i < sources.length; i++) {
            if (sources[i].isBlank()) {
                throw new IllegalArgumentException(where + " has a blank expression at position " + (i + 1)
                        + " of keys " + List.of(sources) + "; give each key an expression, e.g. \"#from\".");
            }
            keys.add(parseKey(sources[i], method, where));
        }
        return List.copyOf(keys);
    }

    /** Parses a key expression once, refusing variables that name no parameter of {@code method}. */
    Expression parseKey(String source, Method method, String where) {
        Expression expression;
        try {
            expression = parser.parseExpression(source);
        } catch (ParseException e) {
            throw new IllegalArgumentException(
                    where + " has an invalid SpEL key '" + source + "': " + e.getMessage(), e);
        }
        if (expression instanceof SpelExpression spel) {
            Set<String> known = knownVariables(method);
            for (String variable : variables(spel.getAST(), new ArrayList<>())) {
                if (!known.contains(variable)) {
                    throw new IllegalArgumentException(where + " has the key '" + source + "', which refers to #"
                            + variable + ", but the method has no such parameter. Parameters: "
                            + String.join(", ", parameterNames(method)) + " (or #p0, #a0, ...).");
                }
            }
        }
        return expression;
    }

    private Set<String> knownVariables(Method method) {
        Set<String> known = new HashSet<>(parameterNames(method));
        known.add("root");
        known.add("this");
        for (int i = 0; i < method.getParameterCount(); i++) {
            known.add("p" + i);
            known.add("a" + i);
        }
        return known;
    }

    private List<String> parameterNames(Method method) {
        String[] names = parameterNames.getParameterNames(method);
        return names == null ? List.of() : List.of(names);
    }

    private static List<String> variables(SpelNode node, List<String> found) {
        if (node instanceof VariableReference) {
            found.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            variables(node.getChild(i), found);
        }
        return found;
    }

    /** A duration attribute ({@code 500ms}, {@code PT1S}, {@code ${...}}); null when blank. */
    Duration duration(String text, String attribute, String where, boolean zeroAllowed) {
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

    /** What a skipped call of a method returning {@code returnType} returns. */
    static Object skipValue(Class<?> returnType) {
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
}
