package dev.distlock.spring.fencing;

import dev.distlock.core.LockHandle;
import dev.distlock.spring.ReactiveLockContext;
import dev.distlock.spring.fencing.FencedMethods.FencedMethod;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link Fenced} methods that return a {@code Mono} or {@code Flux}, checked on subscription off the event loop,
 * since a store may block. Loaded only when Reactor is on the classpath.
 */
final class ReactiveFencedCalls {

    private ReactiveFencedCalls() {}

    static Mono<Object> mono(FencedMethodInterceptor interceptor, FencedMethod fenced, MethodInvocation invocation) {
        return checked(interceptor, fenced, invocation).then(Mono.defer(() -> Mono.from(proceed(invocation))));
    }

    static Flux<Object> flux(FencedMethodInterceptor interceptor, FencedMethod fenced, MethodInvocation invocation) {
        return checked(interceptor, fenced, invocation).thenMany(Flux.defer(() -> proceed(invocation)));
    }

    private static Mono<Void> checked(
            FencedMethodInterceptor interceptor, FencedMethod fenced, MethodInvocation invocation) {
        return ReactiveLockContext.currentHandle()
                .switchIfEmpty(Mono.error(() -> FencedMethodInterceptor.notUnderAHold(fenced)))
                .flatMap((LockHandle handle) -> Mono.fromRunnable(
                                () -> interceptor.check(fenced, invocation.getArguments(), handle))
                        .subscribeOn(Schedulers.boundedElastic()))
                .then();
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> proceed(MethodInvocation invocation) {
        try {
            Publisher<Object> work = (Publisher<Object>) invocation.proceed();
            return work == null ? Mono.empty() : work;
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }
}
