package dev.distlock.spring.fencing;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * Applies {@link FencedMethodInterceptor} to {@link Fenced} methods, inside {@code @DistributedLock} and
 * {@code @Transactional}. The order is lock, transaction, fence check, body.
 */
final class FencedMethodAdvisor extends AbstractPointcutAdvisor {

    private final FencedMethodInterceptor interceptor;
    private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return FencedMethods.isAnnotated(method, targetClass);
        }
    };

    FencedMethodAdvisor(FencedMethodInterceptor interceptor) {
        this.interceptor = interceptor;
        setOrder(Ordered.LOWEST_PRECEDENCE);
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
