package dev.distlock.spring.fencing;

import dev.distlock.core.LockHandle;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.fencing.FencedMethods.FencedMethod;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs the fence check of a {@link Fenced} method with the current hold's claim, then the method. The check is the
 * transaction's first statement, or for reactive methods runs on subscription.
 */
final class FencedMethodInterceptor implements MethodInterceptor {

    private final FencedMethods methods;
    private final FencingClaims claims;
    private final BeanFactory beanFactory;
    private final Map<String, FenceStore> stores = new ConcurrentHashMap<>();

    FencedMethodInterceptor(FencedMethods methods, FencingClaims claims, BeanFactory beanFactory) {
        this.methods = methods;
        this.claims = claims;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
        FencedMethod fenced = methods.find(invocation.getMethod(), targetClass);
        if (fenced == null) {
            return invocation.proceed();
        }
        switch (fenced.returns()) {
            case MONO:
                return ReactiveFencedCalls.mono(this, fenced, invocation);
            case FLUX:
                return ReactiveFencedCalls.flux(this, fenced, invocation);
            case COMPLETION_STAGE:
                try {
                    check(fenced, invocation.getArguments(), currentHandle(fenced));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
                return invocation.proceed();
            default:
                check(fenced, invocation.getArguments(), currentHandle(fenced));
                return invocation.proceed();
        }
    }

    /** Admits the hold as a writer (or reader) of the method's resource. A stale token throws. */
    void check(FencedMethod fenced, Object[] args, LockHandle handle) {
        boolean threadBound = fenced.returns() == FencedMethods.Returns.VALUE
                || fenced.returns() == FencedMethods.Returns.COMPLETION_STAGE;
        // A reactive @Transactional keeps its transaction in the Reactor context, not on the thread.
        if (threadBound && fenced.transactional() && !TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("@Fenced on " + fenced.describe() + " ran before its @Transactional"
                    + " transaction began, so the fence would not hold until the commit. The fence advisor must"
                    + " be ordered inside the transaction advisor: leave @EnableTransactionManagement at its"
                    + " default order (lowest precedence), or give it an order below Ordered.LOWEST_PRECEDENCE.");
        }
        FencingClaim claim = claims.of(handle);
        String resource = methods.resource(fenced, args, handle);
        FenceStore store = store(fenced);
        try {
            if (fenced.access() == Fenced.Access.READ) {
                store.admitRead(resource, claim);
            } else {
                store.admitWrite(resource, claim);
            }
        } catch (StaleTokenException e) {
            throw new StaleFencingTokenException(e);
        }
    }

    private static LockHandle currentHandle(FencedMethod fenced) {
        return LockContext.currentHandle().orElseThrow(() -> notUnderAHold(fenced));
    }

    static IllegalStateException notUnderAHold(FencedMethod fenced) {
        if (LockContext.currentMultiHandle().isPresent()) {
            return new IllegalStateException("@Fenced method " + fenced.describe() + " was called inside a"
                    + " @DistributedLock method that holds several keys "
                    + LockContext.currentMultiHandle().get().keys() + ": @Fenced shows the resource one hold's"
                    + " token, and that hold has one per key. Put @DistributedLock with the resource's own key on the"
                    + " @Fenced method (it joins the outer hold of that key), or pass LockContext.currentToken(key)"
                    + " to the resource yourself.");
        }
        return new IllegalStateException("@Fenced method " + fenced.describe() + " was called without a distlock"
                + " hold, so there is no token to show the resource. Call it inside a @DistributedLock method, or"
                + " put @DistributedLock on it.");
    }

    private FenceStore store(FencedMethod fenced) {
        return stores.computeIfAbsent(fenced.store(), name -> lookUp(name, fenced));
    }

    private FenceStore lookUp(String name, FencedMethod fenced) {
        if (!name.isEmpty()) {
            return beanFactory.getBean(name, FenceStore.class);
        }
        try {
            return beanFactory.getBean(FenceStore.class);
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    "@Fenced on " + fenced.describe() + " does not say which of the "
                            + e.getNumberOfBeansFound()
                            + " FenceStore beans to check. Set its store attribute to a bean"
                            + " name, or mark one store @Primary.",
                    e);
        } catch (NoSuchBeanDefinitionException e) {
            throw new IllegalStateException(
                    "@Fenced on " + fenced.describe() + " needs a FenceStore bean, and there"
                            + " is none. With a DataSource the starter configures the SQL fence store (unless"
                            + " distributed-lock.fencing.jdbc.enabled=false); otherwise declare a FenceStore bean.",
                    e);
        }
    }
}
