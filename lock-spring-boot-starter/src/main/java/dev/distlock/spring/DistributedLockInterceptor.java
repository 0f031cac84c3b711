package dev.distlock.spring;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.LockedTask;
import dev.distlock.core.spi.LockRegistrySupport;
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
        Duration waitTime = locked.waitTime();
        LockedTask<Object, Throwable> task = handle -> {
            LockContext.push(handle);
            try {
                return invocation.proceed();
            } finally {
                LockContext.pop(handle);
            }
        };
        Acquisition acquisition = new Acquisition(task);
        try {
            return locked.leaseTime() == null
                    ? registry.executeLocked(key, waitTime, acquisition)
                    : runWithFixedLease(registry, key, waitTime, locked.leaseTime(), acquisition);
        } catch (LockNotAcquiredException e) {
            if (acquisition.ran || e.getCause() instanceof InterruptedException) {
                throw e; // the method's own exception, or an interrupted wait
            }
            if (locked.onFailure() == OnFailure.SKIP) {
                log.debug("Skipped {}: lock '{}' is held elsewhere", LockedMethod.describe(locked.method()), key);
                return locked.skipValue();
            }
            throw new MethodLockNotAcquiredException(
                    key,
                    registry.backend(),
                    waitTime,
                    LockedMethod.describe(locked.method()),
                    holderOf(registry, key),
                    keyPrefix(registry));
        }
    }

    /**
     * {@link LockRegistry#executeLocked} for a fixed lease, which it does not take: the same
     * acquire-run-release, with {@code tryAcquire(waitTime, leaseTime)}.
     */
    private static Object runWithFixedLease(
            LockRegistry registry,
            String key,
            Duration waitTime,
            Duration leaseTime,
            LockedTask<Object, Throwable> task)
            throws Throwable {
        Optional<LockHandle> acquired;
        try {
            acquired = registry.obtain(key).tryAcquire(waitTime, leaseTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, registry.backend(), waitTime, e);
        }
        try (LockHandle handle =
                acquired.orElseThrow(() -> new LockNotAcquiredException(key, registry.backend(), waitTime))) {
            return task.run(handle);
        }
    }

    private static String keyPrefix(LockRegistry registry) {
        return registry instanceof LockRegistrySupport support
                ? support.options().keyPrefix()
                : "";
    }

    /** Who holds the key, for the message; empty when the backend cannot tell or does not answer. */
    private static Optional<LockHolder> holderOf(LockRegistry registry, String key) {
        try {
            return registry.holderOf(key);
        } catch (RuntimeException e) {
            log.debug("Could not learn who holds lock '{}'", key, e);
            return Optional.empty();
        }
    }

    /** The method run under the lock; remembers whether it ran, to tell its exceptions from the lock's. */
    private static final class Acquisition implements LockedTask<Object, Throwable> {

        private final LockedTask<Object, Throwable> task;
        private boolean ran;

        Acquisition(LockedTask<Object, Throwable> task) {
            this.task = task;
        }

        @Override
        public Object run(LockHandle handle) throws Throwable {
            ran = true;
            return task.run(handle);
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
}
