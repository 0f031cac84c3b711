package dev.distlock.spring;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The lock of a {@code Mono} or {@code Flux} {@link DistributedLock} method, read from the Reactor
 * context (the reactive counterpart of {@link LockContext}, whose thread-bound view does not follow
 * a pipeline across threads).
 */
public final class ReactiveLockContext {

    /** The Reactor context key under which the hold is stored. */
    public static final String KEY = "dev.distlock.spring.LockHandle";

    private ReactiveLockContext() {}

    /** The fencing token of the enclosing locked method's hold, or empty outside one. */
    public static Mono<FencingToken> currentToken() {
        return Mono.deferContextual(ctx -> Mono.justOrEmpty(handle(ctx)).map(LockHandle::token));
    }

    /** The enclosing locked method's hold, or empty outside one. */
    public static Mono<LockHandle> currentHandle() {
        return Mono.deferContextual(ctx -> Mono.justOrEmpty(handle(ctx)));
    }

    private static LockHandle handle(ContextView ctx) {
        return ctx.getOrDefault(KEY, null);
    }
}
