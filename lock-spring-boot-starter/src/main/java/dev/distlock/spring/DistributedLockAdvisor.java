package dev.distlock.spring;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Applies {@link DistributedLockInterceptor} to methods annotated with {@link DistributedLock}. */
final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private final DistributedLockInterceptor interceptor;
    private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return LockedMethods.isAnnotated(method, targetClass);
        }
    };

    DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
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
