package dev.distlock.spring;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Applies {@link DistributedSemaphoreInterceptor} to methods annotated with {@link DistributedSemaphore}. */
final class DistributedSemaphoreAdvisor extends AbstractPointcutAdvisor {

    private final DistributedSemaphoreInterceptor interceptor;
    private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return SemaphoreMethods.isAnnotated(method, targetClass);
        }
    };

    DistributedSemaphoreAdvisor(DistributedSemaphoreInterceptor interceptor, int order) {
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
