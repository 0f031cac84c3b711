package dev.distlock.spring.aspect;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.LockedTask;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.core.multi.MultiLockHandle;
import dev.distlock.core.multi.MultiLockedTask;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * Runs a {@link DistributedLock} method under its lock. Registries and defaults are looked up on
 * first use, so that the advisor, created early, does not pull the backend's beans in with it.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final LockedMethods methods;
    private final BeanFactory beanFactory;
    private final Map<String, LockRegistry> registries = new ConcurrentHashMap<>();
    private final Map<Method, Boolean> scheduledMethods = new ConcurrentHashMap<>();

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
        if (locked.multiKey()) {
            return runMultiLocked(locked, invocation);
        }
        String key = methods.lockKey(locked, invocation.getArguments());
        LockRegistry registry = registry(locked);
        FencedLock lock = lockOf(registry, locked, key);
        Supplier<RuntimeException> notAcquired = () -> notAcquired(locked, registry, key);
        switch (locked.returns()) {
            case COMPLETION_STAGE:
                return AsyncLockedCalls.completionStage(lock, locked, invocation, notAcquired);
            case MONO:
                return ReactiveLockedCalls.mono(lock, locked, invocation::proceed, notAcquired);
            case FLUX:
                return ReactiveLockedCalls.flux(lock, locked, invocation::proceed, notAcquired);
            case FLOW:
                return KotlinFlows.flow(lock, locked, invocation, notAcquired);
            default:
                return runLocked(lock, locked, invocation, notAcquired);
        }
    }

    private Object runLocked(
            FencedLock lock, LockedMethod locked, MethodInvocation invocation, Supplier<RuntimeException> notAcquired)
            throws Throwable {
        Acquisition acquisition = new Acquisition(locked, invocation);
        return run(
                locked,
                acquisition,
                () -> lock.executeLocked(locked.waitTime(), locked.leaseTime(), acquisition),
                e -> notAcquired.get());
    }

    /** A {@code keys} method: every key held at once, through {@link MultiLock}; plain return values only. */
    private Object runMultiLocked(LockedMethod locked, MethodInvocation invocation) throws Throwable {
        List<String> keys = methods.lockKeys(locked, invocation.getArguments());
        LockRegistry registry = registry(locked);
        MultiLock lock = MultiLock.of(registry, keys);
        Acquisition acquisition = new Acquisition(locked, invocation);
        return run(
                locked,
                acquisition,
                () -> lock.executeLocked(locked.waitTime(), locked.leaseTime(), acquisition),
                e -> notAcquired(locked, registry, e.key()));
    }

    /** Runs the acquisition and the method; turns the lock's failures into what the method's annotation asks. */
    private Object run(
            LockedMethod locked,
            Acquisition acquisition,
            LockedCall call,
            Function<LockNotAcquiredException, RuntimeException> notAcquired)
            throws Throwable {
        try {
            return call.run();
        } catch (LockBackendException e) {
            boolean methodsOwn = acquisition.ran && !acquisition.finished;
            if (methodsOwn || !scheduled(locked)) {
                throw e;
            }
            // The lock's backend failed to grant or release: the scheduler would log each run's
            // failure with its whole stack trace.
            log.warn("Skipped this run of scheduled {}: {}", LockedMethod.describe(locked.method()), e.getMessage());
            return locked.skipValue();
        } catch (LockNotAcquiredException e) {
            if (acquisition.ran || e.getCause() instanceof InterruptedException) {
                throw e; // the method's own exception, or an interrupted wait
            }
            RuntimeException failure = notAcquired.apply(e);
            if (failure == null) {
                return locked.skipValue();
            }
            throw failure;
        }
    }

    /** The acquisition and the method under it. */
    @FunctionalInterface
    private interface LockedCall {
        Object run() throws Throwable;
    }

    /** Applies what the method asks of a fresh hold (a minimum hold). */
    static LockHandle startHold(LockHandle handle, LockedMethod locked) {
        if (locked.holdAtLeast() != null) {
            handle.holdAtLeast(locked.holdAtLeast());
        }
        return handle;
    }

    private static FencedLock lockOf(LockRegistry registry, LockedMethod locked, String key) {
        return switch (locked.mode()) {
            case READ -> registry.readWriteLock(key).readLock();
            case WRITE -> registry.readWriteLock(key).writeLock();
            default -> registry.obtain(key);
        };
    }

    /** The exception for a lock that was not acquired in time; null when the method skips instead. */
    private static RuntimeException notAcquired(LockedMethod locked, LockRegistry registry, String key) {
        if (locked.onFailure() == OnFailure.SKIP) {
            log.debug("Skipped {}: lock '{}' is held elsewhere", LockedMethod.describe(locked.method()), key);
            return null;
        }
        return new MethodLockNotAcquiredException(
                key, registry, locked.waitTime(), LockedMethod.describe(locked.method()), holderOf(registry, key));
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
    private static final class Acquisition
            implements LockedTask<Object, Throwable>, MultiLockedTask<Object, Throwable> {

        private final LockedMethod locked;
        private final MethodInvocation invocation;
        private boolean ran;
        private boolean finished;

        Acquisition(LockedMethod locked, MethodInvocation invocation) {
            this.locked = locked;
            this.invocation = invocation;
        }

        @Override
        public Object run(LockHandle handle) throws Throwable {
            ran = true;
            startHold(handle, locked);
            HeldLocks.push(handle);
            Object result;
            try {
                result = invocation.proceed();
            } finally {
                HeldLocks.pop(handle);
            }
            finished = true;
            return result;
        }

        @Override
        public Object run(MultiLockHandle handle) throws Throwable {
            ran = true;
            if (locked.holdAtLeast() != null) {
                handle.holdAtLeast(locked.holdAtLeast());
            }
            HeldLocks.push(handle);
            Object result;
            try {
                result = invocation.proceed();
            } finally {
                HeldLocks.pop(handle);
            }
            finished = true;
            return result;
        }
    }

    /** True for a method a Spring scheduler runs, where nobody but the log hears of a failure. */
    private boolean scheduled(LockedMethod locked) {
        return scheduledMethods.computeIfAbsent(
                locked.method(),
                method -> AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                        || AnnotatedElementUtils.hasAnnotation(method, Schedules.class));
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
