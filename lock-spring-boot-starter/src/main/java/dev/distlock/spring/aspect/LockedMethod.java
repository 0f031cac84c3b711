package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLock.Mode;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.springframework.expression.Expression;

/**
 * One {@link DistributedLock} method, its annotation parsed and checked once.
 *
 * @param attributes what it shares with semaphore methods (name, key, wait, lease, onFailure, registry)
 * @param keys the parsed expressions of {@link DistributedLock#keys()}, or empty when the method takes one key
 * @param mode which lock of the key
 * @param holdAtLeast a minimum hold, or null
 * @param returns how the method returns its result, which decides how long the lock is held
 */
record LockedMethod(
        MethodAttributes attributes, List<Expression> keys, Mode mode, Duration holdAtLeast, Returns returns) {

    static final String LOCK = "@DistributedLock";

    /** How a locked method hands back its work. The lock is held until that work is done. */
    enum Returns {
        /** A plain value, done when the method returns. */
        VALUE,
        /** A {@code CompletionStage}, done when it completes. */
        COMPLETION_STAGE,
        /** A Reactor {@code Mono} (or a Kotlin suspend function), done when it terminates or is cancelled. */
        MONO,
        /** A Reactor {@code Flux} (or a suspend function returning a {@code Flow}), done when it ends. */
        FLUX,
        /** A Kotlin {@code Flow}, done when its collection completes, fails or is cancelled. */
        FLOW
    }

    Method method() {
        return attributes.method();
    }

    String name() {
        return attributes.name();
    }

    Expression key() {
        return attributes.key();
    }

    Duration waitTime() {
        return attributes.waitTime();
    }

    Duration leaseTime() {
        return attributes.leaseTime();
    }

    OnFailure onFailure() {
        return attributes.onFailure();
    }

    String registry() {
        return attributes.registry();
    }

    Object skipValue() {
        return attributes.skipValue();
    }

    /** True when the method holds several keys ({@link DistributedLock#keys()}). */
    boolean multiKey() {
        return !keys.isEmpty();
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
    }
}
