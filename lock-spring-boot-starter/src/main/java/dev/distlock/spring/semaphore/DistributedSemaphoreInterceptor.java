package dev.distlock.spring.semaphore;

import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permits;
import dev.distlock.spring.DistributedLock.OnFailure;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.aspect.LockAnnotationParser;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@link DistributedSemaphore} method holding its permits. It takes them (waiting at most the method's wait
 * time), runs the method, and gives them back when it returns or throws.
 */
final class DistributedSemaphoreInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedSemaphoreInterceptor.class);

    private final SemaphoreMethods methods;
    private final DistributedSemaphores semaphores;

    DistributedSemaphoreInterceptor(SemaphoreMethods methods, DistributedSemaphores semaphores) {
        this.methods = methods;
        this.semaphores = semaphores;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
        SemaphoreMethod method = methods.find(invocation.getMethod(), targetClass);
        if (method == null) {
            return invocation.proceed();
        }
        LeasedSemaphore semaphore =
                semaphores.semaphore(method, methods.semaphoreName(method, invocation.getArguments()));
        int wanted = method.permitsPerCall();
        Optional<Permits> permits;
        try {
            permits = method.leaseTime() == null
                    ? semaphore.tryAcquire(wanted, method.waitTime())
                    : semaphore.tryAcquire(wanted, method.waitTime(), method.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(semaphore.name(), semaphore.backend(), method.waitTime(), e);
        }
        if (permits.isEmpty()) {
            if (method.onFailure() == OnFailure.SKIP) {
                log.debug(
                        "Skipped {}: no permit of semaphore '{}' came free",
                        LockAnnotationParser.describe(method.method()),
                        semaphore.name());
                return method.skipValue();
            }
            throw new SemaphoreNotAcquiredException(
                    semaphore, wanted, method.waitTime(), LockAnnotationParser.describe(method.method()));
        }
        semaphores.acquired(method, semaphore, wanted);
        try (Permits held = permits.get()) {
            return invocation.proceed();
        } finally {
            semaphores.released(semaphore, wanted);
        }
    }
}
