package dev.distlock.spring.leader;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;

/** Runs a {@link LeaderOnly} method only while this instance leads its name. */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    private final ObjectProvider<LeaderElection> election;
    private final Environment environment;
    private final Map<Method, String> names = new ConcurrentHashMap<>();

    LeaderOnlyInterceptor(ObjectProvider<LeaderElection> election, Environment environment) {
        this.election = election;
        this.environment = environment;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        String name =
                names.computeIfAbsent(method, m -> name(m, target == null ? null : AopUtils.getTargetClass(target)));
        LeaderElection leaders = election.getObject();
        leaders.campaign(name);
        if (leaders.isLeader(name)) {
            return invocation.proceed();
        }
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    private String name(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        return nameOf(specific, environment);
    }

    /** The name {@code method}'s {@link LeaderOnly} leads, placeholders resolved, or null when not annotated. */
    static String nameOf(Method method, Environment environment) {
        LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        if (leaderOnly == null) {
            return null;
        }
        String name = environment.resolveRequiredPlaceholders(leaderOnly.value());
        if (name.isBlank()) {
            throw new IllegalArgumentException("@LeaderOnly on " + method + " names no leadership; give it a name");
        }
        return name;
    }
}
