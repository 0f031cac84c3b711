package dev.distlock.spring.aspect;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.spring.ReactiveLockContext;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @DistributedLock} methods that return a Reactor {@code Mono} or {@code Flux}, held from subscription until
 * the method's publisher ends or is cancelled. The hold is in the Reactor context under
 * {@link ReactiveLockContext#KEY}. Loaded only when Reactor is on the classpath.
 */
final class ReactiveLockedCalls {

    private ReactiveLockedCalls() {}

    /** The method's call, returning its publisher (or null for none). */
    @FunctionalInterface
    interface Work {
        Object proceed() throws Throwable;
    }

    static Mono<Object> mono(
            FencedLock lock, LockedMethod locked, Work invocation, Supplier<RuntimeException> notAcquired) {
        return Mono.usingWhen(
                acquire(lock, locked, notAcquired),
                handle -> Mono.from(call(invocation, handle))
                        .contextWrite(ctx -> ctx.put(ReactiveLockContext.KEY, handle)),
                ReactiveLockedCalls::release,
                (handle, error) -> release(handle),
                ReactiveLockedCalls::release);
    }

    static Flux<Object> flux(
            FencedLock lock, LockedMethod locked, Work invocation, Supplier<RuntimeException> notAcquired) {
        return Flux.usingWhen(
                acquire(lock, locked, notAcquired),
                handle -> Flux.from(call(invocation, handle))
                        .contextWrite(ctx -> ctx.put(ReactiveLockContext.KEY, handle)),
                ReactiveLockedCalls::release,
                (handle, error) -> release(handle),
                ReactiveLockedCalls::release);
    }

    /** The hold, or empty when the method skips, or an error when it throws on contention. */
    private static Mono<LockHandle> acquire(
            FencedLock lock, LockedMethod locked, Supplier<RuntimeException> notAcquired) {
        return Mono.fromFuture(() -> AsyncLockedCalls.acquire(lock, locked), false)
                .flatMap(acquired -> acquired.map(handle -> Mono.just(LockedInvocation.startHold(handle, locked)))
                        .orElseGet(() -> {
                            RuntimeException failure = notAcquired.get();
                            return failure == null ? Mono.empty() : Mono.error(failure);
                        }));
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> call(Work invocation, LockHandle handle) {
        HeldLocks.push(handle);
        try {
            Publisher<Object> work = (Publisher<Object>) invocation.proceed();
            return work == null ? Mono.empty() : work;
        } catch (Throwable e) {
            return Mono.error(e);
        } finally {
            HeldLocks.pop(handle);
        }
    }

    private static Mono<Void> release(LockHandle handle) {
        return Mono.fromRunnable(() -> AsyncLockedCalls.release(handle));
    }
}
