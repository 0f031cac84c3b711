package dev.distlock.test.spring;

import dev.distlock.core.FencingToken;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;
import dev.distlock.test.LockControl;

/** A job guarded by {@code @DistributedLock}, as an application has it; it checks it runs under its lock. */
public class PaymentJob {

    private final LockControl control;

    public PaymentJob(LockControl control) {
        this.control = control;
    }

    @DistributedLock(name = "payments", key = "#batch", waitTime = "0s")
    public FencingToken pay(String batch) {
        control.assertHeld("payments:" + batch);
        return LockContext.currentToken();
    }

    /** The same work without the annotation: the mistake assertHeld catches. */
    public void payWithoutLock(String batch) {
        control.assertHeld("payments:" + batch);
    }
}
