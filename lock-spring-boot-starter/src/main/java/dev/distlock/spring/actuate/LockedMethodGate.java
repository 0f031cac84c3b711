package dev.distlock.spring.actuate;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;

/**
 * Lets {@code @DistributedLock} and {@code @DistributedSemaphore} methods start until {@link #close()}, and counts
 * those running so that shutdown can wait for them. A call nested in a running one still starts after close.
 */
public final class LockedMethodGate implements MethodInterceptor {

    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
    private int running;
    private boolean closed;

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        int[] nested = depth.get();
        synchronized (this) {
            if (closed && nested[0] == 0) {
                throw new LockingStoppedException(describe(invocation));
            }
            running++;
        }
        nested[0]++;
        try {
            return invocation.proceed();
        } finally {
            if (--nested[0] == 0) {
                depth.remove();
            }
            synchronized (this) {
                if (--running == 0) {
                    notifyAll();
                }
            }
        }
    }

    private static String describe(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> type = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        return ClassUtils.getUserClass(type).getSimpleName() + "."
                + invocation.getMethod().getName() + "()";
    }

    /** Refuses new locked methods from now on. */
    public synchronized void close() {
        closed = true;
    }

    /** Lets locked methods start again. */
    public synchronized void open() {
        closed = false;
    }

    /** True once {@link #close()} was called (and until {@link #open()}). */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** How many locked methods run now. */
    public synchronized int running() {
        return running;
    }

    /**
     * Waits until no locked method runs, at most {@code timeout}.
     *
     * @return true when none runs
     */
    public synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (running > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
