package dev.distlock.spring;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;

/**
 * Runs a {@link DistributedLock} method under its lock. Registries and defaults are looked up on
 * first use, so that the advisor, created early, does not pull the backend's beans in with it.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final LockedMethods methods;
    private final BeanFactory beanFactory;
    private final Map<String, LockRegistry> registries = new ConcurrentHashMap<>();
    private volatile Duration defaultWaitTime;

    DistributedLockInterceptor(LockedMethods methods, BeanFactory beanFactory) {
        this.methods = methods;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
        LockedMethod locked = methods.find(invocation.getMethod(), targetClass);
        if (locked == null) {
            return invocation.proceed();
        }
        String key = methods.lockKey(locked, invocation.getArguments());
        LockRegistry registry = registry(locked);
        Duration waitTime = locked.waitTime() != null ? locked.waitTime() : defaultWaitTime();
        FencedLock lock = registry.obtain(key);
        Optional<LockHandle> acquired;
        try {
            acquired = locked.leaseTime() == null
                    ? lock.tryAcquire(waitTime)
                    : lock.tryAcquire(waitTime, locked.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, registry.backend(), waitTime, e);
        }
        if (acquired.isEmpty()) {
            if (locked.onFailure() == OnFailure.SKIP) {
                log.debug("Skipped {}: lock '{}' is held elsewhere", LockedMethod.describe(locked.method()), key);
                return locked.skipValue();
            }
            throw new LockNotAcquiredException(key, registry.backend(), waitTime);
        }
        LockHandle handle = acquired.get();
        LockContext.push(handle);
        try {
            return invocation.proceed();
        } finally {
            LockContext.pop(handle);
            handle.close();
        }
    }

    private LockRegistry registry(LockedMethod locked) {
        return registries.computeIfAbsent(locked.registry(), name -> lookUp(name, locked));
    }

    private LockRegistry lookUp(String name, LockedMethod locked) {
        if (!name.isEmpty()) {
            return beanFactory.getBean(name, LockRegistry.class);
        }
        try {
            return beanFactory.getBean(LockRegistry.class);
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    "@DistributedLock on " + LockedMethod.describe(locked.method()) + " does not say which of the "
                            + e.getNumberOfBeansFound() + " LockRegistry beans to use. Set its registry attribute"
                            + " to a bean name, or mark one registry @Primary.",
                    e);
        }
    }

    private Duration defaultWaitTime() {
        Duration waitTime = defaultWaitTime;
        if (waitTime == null) {
            waitTime = beanFactory
                    .getBeanProvider(DistributedLockProperties.class)
                    .getIfAvailable(DistributedLockProperties::new)
                    .getWaitTime();
            if (waitTime == null || waitTime.isNegative()) {
                throw PropertyChecks.invalid("wait-time", waitTime, "must be zero or positive, e.g. 0s or 500ms");
            }
            defaultWaitTime = waitTime;
        }
        return waitTime;
    }
}
