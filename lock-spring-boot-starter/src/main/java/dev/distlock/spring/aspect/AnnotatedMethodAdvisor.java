package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import java.lang.reflect.Method;
import java.util.function.BiPredicate;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies an interceptor to the {@link DistributedLock} or {@link DistributedSemaphore} methods that its
 * {@link AnnotatedMethods} finds (the annotation may sit on the method, its class, or an interface either implements).
 */
public final class AnnotatedMethodAdvisor extends AbstractPointcutAdvisor {

    private final Advice interceptor;
    private final Pointcut pointcut;

    /**
     * @param annotated whether a method of a target class carries the annotation
     * @param interceptor what runs around such a method
     * @param order where it runs among the other advisors
     */
    public AnnotatedMethodAdvisor(BiPredicate<Method, Class<?>> annotated, Advice interceptor, int order) {
        this.interceptor = interceptor;
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return annotated.test(method, targetClass);
            }
        };
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
