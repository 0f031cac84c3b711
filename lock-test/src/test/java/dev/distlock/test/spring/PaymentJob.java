package dev.distlock.test.spring;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;
import dev.distlock.test.LockControl;
import java.util.function.Consumer;

/**
 * A job guarded by {@code @DistributedLock}, as an application has it: it charges a batch (through a
 * gateway the test may hold up), then records it in a fenced store, and checks it runs under its lock.
 */
public class PaymentJob {

    private final LockControl control;
    private final LockRegistry registry;
    private final FenceStore fences;
    private final Consumer<String> gateway;

    public PaymentJob(LockControl control, LockRegistry registry, FenceStore fences, Consumer<String> gateway) {
        this.control = control;
        this.registry = registry;
        this.fences = fences;
        this.gateway = gateway;
    }

    @DistributedLock(name = "payments", key = "#batch", waitTime = "0s")
    public FencingToken pay(String batch) {
        control.assertHeld("payments:" + batch);
        gateway.accept(batch);
        FencingToken token = LockContext.currentToken();
        fences.admitWrite("batch:" + batch, new FencingClaim(registry.backend(), "payments:" + batch, token));
        return token;
    }

    /** The same work without the annotation: the mistake assertHeld catches. */
    public void payWithoutLock(String batch) {
        control.assertHeld("payments:" + batch);
    }
}
