package dev.distlock.spring.aspect;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockedTask;
import dev.distlock.core.multi.MultiLockHandle;
import dev.distlock.core.multi.MultiLockedTask;
import org.aopalliance.intercept.MethodInvocation;

/** The method run under its lock. It remembers whether it ran, to tell its exceptions from the lock's. */
final class LockedInvocation implements LockedTask<Object, Throwable>, MultiLockedTask<Object, Throwable> {

    private final LockedMethod locked;
    private final MethodInvocation invocation;
    private boolean ran;
    private boolean finished;

    LockedInvocation(LockedMethod locked, MethodInvocation invocation) {
        this.locked = locked;
        this.invocation = invocation;
    }

    /** Applies what the method asks of a fresh hold (a minimum hold). */
    static LockHandle startHold(LockHandle handle, LockedMethod locked) {
        if (locked.holdAtLeast() != null) {
            handle.holdAtLeast(locked.holdAtLeast());
        }
        return handle;
    }

    /** True once the method started under the lock. */
    boolean ran() {
        return ran;
    }

    /** True while the method runs, so that what it throws is its own. */
    boolean running() {
        return ran && !finished;
    }

    @Override
    public Object run(LockHandle handle) throws Throwable {
        ran = true;
        startHold(handle, locked);
        return proceedHolding(handle, () -> HeldLocks.push(handle));
    }

    @Override
    public Object run(MultiLockHandle handle) throws Throwable {
        ran = true;
        if (locked.holdAtLeast() != null) {
            handle.holdAtLeast(locked.holdAtLeast());
        }
        return proceedHolding(handle, () -> HeldLocks.push(handle));
    }

    /** Runs the method with {@code handle} pushed on the thread's held locks, and marks it finished when it returns. */
    private Object proceedHolding(Object handle, Runnable push) throws Throwable {
        push.run();
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
