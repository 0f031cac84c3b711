package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLock.Mode;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

/**
 * Parses each {@link DistributedLock} method once and keeps the result. As a bean post-processor it parses every
 * bean's annotated methods at start-up, so a bad annotation fails start-up rather than a call.
 */
final class LockedMethods implements BeanPostProcessor {

    private final LockAnnotationParser parser;
    private final AnnotatedMethods<DistributedLock, LockedMethod> methods =
            new AnnotatedMethods<>(DistributedLock.class, this::parse);

    LockedMethods(Environment environment, BeanFactory beanFactory) {
        this.parser = new LockAnnotationParser(environment, beanFactory);
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
        return parser.keyOf(LockedMethod.LOCK, locked.attributes(), args);
    }

    List<String> lockKeys(LockedMethod locked, Object[] args) {
        return parser.lockKeys(locked, args);
    }

    private LockedMethod parse(Method method, Class<?> targetClass, DistributedLock annotation) {
        String where = LockedMethod.LOCK + " on " + LockedMethod.describe(method);
        Class<?> userClass = ClassUtils.getUserClass(targetClass != null ? targetClass : method.getDeclaringClass());
        String name = annotation.name().isBlank()
                ? userClass.getSimpleName() + "." + method.getName()
                : annotation.name().trim();
        Expression key = parser.key(annotation.key(), method, where);
        Duration waitTime = parser.waitTime(annotation.waitTime(), where);
        Duration leaseTime = parser.duration(annotation.leaseTime(), "leaseTime", where, false);
        Duration holdAtLeast = parser.duration(annotation.holdAtLeast(), "holdAtLeast", where, false);
        LockedMethod.Returns returns = ReturnTypes.classify(method, where);
        List<Expression> keys = parseKeys(annotation, method, where, returns);
        MethodAttributes attributes = new MethodAttributes(
                method,
                name,
                key,
                waitTime,
                leaseTime,
                parser.onFailure(annotation.onFailure(), method, where),
                parser.registry(annotation.registry(), where),
                LockAnnotationParser.skipValue(method.getReturnType()));
        return new LockedMethod(attributes, keys, annotation.mode(), holdAtLeast, returns);
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
            throw new IllegalArgumentException(where + " takes several keys (keys) and " + returnsWhat(method)
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
            keys.add(parser.parseKey(sources[i], method, where));
        }
        return List.copyOf(keys);
    }

    private static String returnsWhat(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        boolean suspend = parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
        return suspend
                ? "is a Kotlin suspend function"
                : "returns " + method.getReturnType().getSimpleName();
    }
}
