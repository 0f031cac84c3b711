package dev.distlock.spring.leader;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Applies {@link LeaderOnlyInterceptor} to methods annotated with {@link LeaderOnly}. */
final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

    private final LeaderOnlyInterceptor interceptor;
    private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return LeaderOnlyInterceptor.annotation(method, targetClass) != null;
        }
    };

    LeaderOnlyAdvisor(LeaderOnlyInterceptor interceptor, int order) {
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
