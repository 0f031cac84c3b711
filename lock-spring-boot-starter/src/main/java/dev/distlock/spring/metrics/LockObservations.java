package dev.distlock.spring.metrics;

import dev.distlock.core.LockObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.util.function.SingletonSupplier;

/**
 * Observes {@code @DistributedLock} methods from both sides of the lock advisor, so the lock aspect needs no hook.
 * The wait's observation starts outside it ({@link #waitInterceptor()}) and ends inside it
 * ({@link #lockedInterceptor()}), where the method's observation starts.
 */
final class LockObservations implements LockObserver {

    private final Supplier<ObservationRegistry> observations;
    private final Supplier<LockNames> names;
    private final Supplier<Optional<LockAcquisitionObservationConvention>> acquisitionConvention;
    private final Supplier<Optional<LockedMethodObservationConvention>> lockedConvention;
    private final ThreadLocal<Deque<Wait>> waits = new ThreadLocal<>();

    /**
     * Each is looked up on first use, since the advisors are created before the application's beans. When a
     * convention supplier gives null, the default applies.
     */
    LockObservations(
            Supplier<ObservationRegistry> observations,
            Supplier<LockNames> names,
            Supplier<LockAcquisitionObservationConvention> acquisitionConvention,
            Supplier<LockedMethodObservationConvention> lockedConvention) {
        this.observations = SingletonSupplier.of(observations);
        this.names = SingletonSupplier.of(names);
        this.acquisitionConvention = SingletonSupplier.of(() -> Optional.ofNullable(acquisitionConvention.get()));
        this.lockedConvention = SingletonSupplier.of(() -> Optional.ofNullable(lockedConvention.get()));
    }

    /** Goes just outside the lock advisor. */
    MethodInterceptor waitInterceptor() {
        return this::observeWait;
    }

    /** Goes just inside the lock advisor. */
    MethodInterceptor lockedInterceptor() {
        return this::observeLocked;
    }

    private Object observeWait(MethodInvocation invocation) throws Throwable {
        LockAcquisitionContext context = new LockAcquisitionContext(invocation.getMethod());
        Observation observation = Observation.createNotStarted(
                        acquisitionConvention.get().orElse(null),
                        DefaultLockAcquisitionObservationConvention.INSTANCE,
                        () -> context,
                        observations.get())
                .start();
        Wait wait = new Wait(context, observation, observation.openScope());
        push(wait);
        try {
            return invocation.proceed();
        } catch (Throwable e) {
            if (!wait.ended) {
                observation.error(e);
            }
            throw e;
        } finally {
            pop(wait);
            wait.end();
        }
    }

    private Object observeLocked(MethodInvocation invocation) throws Throwable {
        LockedMethodContext context = new LockedMethodContext(invocation.getMethod());
        Wait wait = current();
        if (wait != null && !wait.ended) {
            wait.end();
            context.copyLock(wait.context);
        }
        return Observation.createNotStarted(
                        lockedConvention.get().orElse(null),
                        DefaultLockedMethodObservationConvention.INSTANCE,
                        () -> context,
                        observations.get())
                .observeChecked(invocation::proceed);
    }

    @Override
    public void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {
        Wait wait = current();
        if (wait != null && !wait.ended && wait.context.getOutcome() == null) {
            wait.context.setLock(backend, key, names.get().of(key));
            wait.context.setOutcome(outcome);
        }
    }

    private Wait current() {
        Deque<Wait> stack = waits.get();
        return stack == null ? null : stack.peekLast();
    }

    private void push(Wait wait) {
        Deque<Wait> stack = waits.get();
        if (stack == null) {
            stack = new ArrayDeque<>();
            waits.set(stack);
        }
        stack.addLast(wait);
    }

    private void pop(Wait wait) {
        Deque<Wait> stack = waits.get();
        stack.removeLastOccurrence(wait);
        if (stack.isEmpty()) {
            waits.remove();
        }
    }

    /** One method's wait for its lock, ended once by whichever side sees it first. */
    private static final class Wait {

        final LockAcquisitionContext context;
        final Observation observation;
        final Observation.Scope scope;
        boolean ended;

        Wait(LockAcquisitionContext context, Observation observation, Observation.Scope scope) {
            this.context = context;
            this.observation = observation;
            this.scope = scope;
        }

        void end() {
            if (!ended) {
                ended = true;
                scope.close();
                observation.stop();
            }
        }
    }
}
