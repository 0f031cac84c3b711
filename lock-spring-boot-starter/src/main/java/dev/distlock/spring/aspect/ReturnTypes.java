package dev.distlock.spring.aspect;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/**
 * Decides from its return type how long a locked method's lock must be held. Asynchronous types whose work it cannot
 * follow fail start-up.
 */
final class ReturnTypes {

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Mono", ReturnTypes.class.getClassLoader());
    private static final String PUBLISHER = "org.reactivestreams.Publisher";
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";
    static final String FLOW = "kotlinx.coroutines.flow.Flow";
    /** What Spring needs for suspend functions and Flow, the coroutines-Reactor bridge and Kotlin reflection. */
    static final boolean COROUTINES = REACTOR
            && ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", ReturnTypes.class.getClassLoader())
            && ClassUtils.isPresent("kotlin.reflect.full.KClasses", ReturnTypes.class.getClassLoader());

    private static final String COROUTINES_MISSING = " Add dev.distlock:lock-kotlin (it brings"
            + " kotlinx-coroutines-reactor and kotlin-reflect, with which Spring runs suspend functions and Flow"
            + " through proxies), or lock inside the function with lock-kotlin's withLock.";

    private ReturnTypes() {}

    static LockedMethod.Returns classify(Method method, String where) {
        Class<?> type = method.getReturnType();
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION)) {
            if (!COROUTINES) {
                throw new IllegalArgumentException(where + " is a Kotlin suspend function, but Kotlin coroutine"
                        + " support is not on the classpath: the lock would be released when the function first"
                        + " suspends, before its work is done." + COROUTINES_MISSING);
            }
            // Spring's proxy runs a suspend function as a Mono, or a Flux when it returns a Flow.
            boolean flow =
                    new MethodParameter(method, -1).getParameterType().getName().equals(FLOW);
            return flow ? LockedMethod.Returns.FLUX : LockedMethod.Returns.MONO;
        }
        if (type.getName().equals(FLOW)) {
            if (!COROUTINES) {
                throw new IllegalArgumentException(where + " returns a Kotlin Flow, but Kotlin coroutine support is"
                        + " not on the classpath: the lock would be released before the Flow is collected."
                        + COROUTINES_MISSING);
            }
            return LockedMethod.Returns.FLOW;
        }
        if (type == CompletionStage.class || type == CompletableFuture.class) {
            return LockedMethod.Returns.COMPLETION_STAGE;
        }
        if (REACTOR && type == reactor.core.publisher.Mono.class) {
            return LockedMethod.Returns.MONO;
        }
        if (REACTOR && type == reactor.core.publisher.Flux.class) {
            return LockedMethod.Returns.FLUX;
        }
        if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(where + " returns " + type.getName() + ", whose completion the lock"
                    + " cannot follow: it would be released when the method returns, before the work is done."
                    + " Return CompletionStage or CompletableFuture.");
        }
        if (isPublisher(type)) {
            throw new IllegalArgumentException(where + " returns " + type.getName() + ": the lock can follow"
                    + (REACTOR
                            ? " only Reactor's Mono and Flux"
                            : " reactive types only when Reactor is on the" + " classpath (Mono, Flux)")
                    + "; released when the method returns, it would protect nothing. Return a Mono or a Flux.");
        }
        return LockedMethod.Returns.VALUE;
    }

    private static boolean isPublisher(Class<?> type) {
        for (Class<?> c : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (c.getName().equals(PUBLISHER)) {
                return true;
            }
        }
        return type.getName().equals(PUBLISHER);
    }
}
