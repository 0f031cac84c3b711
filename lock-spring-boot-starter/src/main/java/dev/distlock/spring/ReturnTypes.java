package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.util.ClassUtils;

/**
 * Decides how long a locked method's lock must be held from what it returns, and refuses at
 * start-up the asynchronous types whose work it could not follow: releasing when such a method
 * returns would leave the work it started unprotected.
 */
final class ReturnTypes {

    private static final boolean REACTOR =
            ClassUtils.isPresent("reactor.core.publisher.Mono", ReturnTypes.class.getClassLoader());
    private static final String PUBLISHER = "org.reactivestreams.Publisher";
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private ReturnTypes() {}

    static LockedMethod.Returns classify(Method method, String where) {
        Class<?> type = method.getReturnType();
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION)) {
            throw new IllegalArgumentException(where + " is a Kotlin suspend function; the lock would be released"
                    + " when it first suspends, before its work is done. Return a Mono or a CompletableFuture"
                    + " (e.g. with kotlinx-coroutines' mono { } or future { }), or lock inside the function with"
                    + " LockRegistry.");
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
