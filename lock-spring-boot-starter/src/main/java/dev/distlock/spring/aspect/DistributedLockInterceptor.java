package dev.distlock.spring.aspect;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.multi.MultiLock;
import dev.distlock.spring.DistributedLock;
import java.util.List;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/** Runs a {@link DistributedLock} method under its lock, in the way its return type needs. */
final class DistributedLockInterceptor implements MethodInterceptor {

    private final LockedMethods methods;
    private final LockRegistries registries;
    private final LockFailures failures = new LockFailures();

    DistributedLockInterceptor(LockedMethods methods, BeanFactory beanFactory) {
        this.methods = methods;
        this.registries = new LockRegistries(beanFactory);
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
        LockRegistry registry = registries.of(locked);
        FencedLock lock = lockOf(registry, locked, key);
        Supplier<RuntimeException> notAcquired = () -> LockFailures.notAcquired(locked, registry, key);
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
        LockedInvocation call = new LockedInvocation(locked, invocation);
        return failures.run(
                locked,
                call,
                () -> lock.executeLocked(locked.waitTime(), locked.leaseTime(), call),
                e -> notAcquired.get());
    }

    /** A {@code keys} method holds every key at once through {@link MultiLock}. Plain return values only. */
    private Object runMultiLocked(LockedMethod locked, MethodInvocation invocation) throws Throwable {
        List<String> keys = methods.lockKeys(locked, invocation.getArguments());
        LockRegistry registry = registries.of(locked);
        MultiLock lock = MultiLock.of(registry, keys);
        LockedInvocation call = new LockedInvocation(locked, invocation);
        return failures.run(
                locked,
                call,
                () -> lock.executeLocked(locked.waitTime(), locked.leaseTime(), call),
                e -> LockFailures.notAcquired(locked, registry, e.key()));
    }

    private static FencedLock lockOf(LockRegistry registry, LockedMethod locked, String key) {
        return switch (locked.mode()) {
            case READ -> registry.readWriteLock(key).readLock();
            case WRITE -> registry.readWriteLock(key).writeLock();
            default -> registry.obtain(key);
        };
    }
}
