package dev.distlock.spring.aspect;

import dev.distlock.spring.LockKeyException;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The SpEL key expressions of annotated methods. Each is parsed once at start-up and evaluated per call into keys,
 * refusing null and blank values with a {@link LockKeyException}.
 */
final class KeyExpressions {

    private final BeanFactoryResolver beanResolver;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final SpelExpressionParser parser = new SpelExpressionParser();

    KeyExpressions(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    /** Parses a key expression once, refusing variables that name no parameter of {@code method}. */
    Expression parse(String source, Method method, String where) {
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

    /**
     * {@code name}, or {@code name + ":" + } the value of {@code key} for this call's arguments.
     *
     * @param annotation the annotation the key belongs to, for messages
     */
    String key(String annotation, MethodAttributes attributes, Object[] args) {
        if (attributes.key() == null) {
            return attributes.name();
        }
        Method method = attributes.method();
        Object value = evaluate(annotation, method, attributes.key(), context(method, args));
        return attributes.name() + ":" + text(annotation, method, attributes.key(), value, "evaluated to");
    }

    /**
     * The lock keys of a {@link dev.distlock.spring.DistributedLock#keys()} method. Each is composed as the single
     * key is, from every expression's value or from each element of a value that is a collection or an array.
     */
    List<String> keys(LockedMethod locked, Object[] args) {
        Method method = locked.method();
        MethodBasedEvaluationContext context = context(method, args);
        List<String> lockKeys = new ArrayList<>();
        for (Expression expression : locked.keys()) {
            Object value = evaluate(LockedMethod.LOCK, method, expression, context);
            if (value != null && value.getClass().isArray()) {
                value = arrayElements(value);
            }
            if (value instanceof Collection<?> elements) {
                if (elements.isEmpty()) {
                    throw new LockKeyException(
                            LockedMethod.LOCK,
                            LockedMethod.describe(method),
                            expression.getExpressionString(),
                            "evaluated to an empty collection; keys needs at least one key. Check the arguments,"
                                    + " or skip the call when there is nothing to lock.");
                }
                for (Object element : elements) {
                    lockKeys.add(locked.name() + ":"
                            + text(LockedMethod.LOCK, method, expression, element, "gave an element that is"));
                }
            } else {
                lockKeys.add(locked.name() + ":" + text(LockedMethod.LOCK, method, expression, value, "evaluated to"));
            }
        }
        return lockKeys;
    }

    private MethodBasedEvaluationContext context(Method method, Object[] args) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, args, parameterNames);
        context.setBeanResolver(beanResolver);
        return context;
    }

    private static Object evaluate(
            String annotation, Method method, Expression expression, MethodBasedEvaluationContext context) {
        try {
            return expression.getValue(context);
        } catch (RuntimeException e) {
            throw new LockKeyException(
                    annotation,
                    LockedMethod.describe(method),
                    expression.getExpressionString(),
                    "failed: " + e + ". Check the expression against the method's arguments.",
                    e);
        }
    }

    private static String text(String annotation, Method method, Expression expression, Object value, String what) {
        if (value == null) {
            throw new LockKeyException(
                    annotation,
                    LockedMethod.describe(method),
                    expression.getExpressionString(),
                    what + " null; a lock key needs a value. Check the arguments, or use the Elvis operator"
                            + " for a default (e.g. \"#id ?: 'none'\").");
        }
        String text = value.toString();
        if (text.isBlank()) {
            // Otherwise every call would share the one lock "name".
            throw new LockKeyException(
                    annotation,
                    LockedMethod.describe(method),
                    expression.getExpressionString(),
                    what + " a blank string; blank lock keys are refused. Validate the argument before the"
                            + " call, or give the expression a default for blank values.");
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
}
