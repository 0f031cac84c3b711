package dev.distlock.spring.aspect;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock.OnFailure;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/** Turns the lock's failures around a {@link LockedInvocation} into what the method's annotation asks. */
final class LockFailures {

    // Logs under the interceptor's name, which logging configurations refer to.
    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Map<Method, Boolean> scheduledMethods = new ConcurrentHashMap<>();

    /** The acquisition and the method under it. */
    @FunctionalInterface
    interface LockedCall {
        Object run() throws Throwable;
    }

    /** Runs the call and answers the lock's failures as {@code locked} asks. */
    Object run(
            LockedMethod locked,
            LockedInvocation invocation,
            LockedCall call,
            Function<LockNotAcquiredException, RuntimeException> notAcquired)
            throws Throwable {
        try {
            return call.run();
        } catch (LockBackendException e) {
            if (invocation.running() || !scheduled(locked)) {
                throw e;
            }
            // The scheduler would log each run's failure with its whole stack trace.
            log.warn("Skipped this run of scheduled {}: {}", LockedMethod.describe(locked.method()), e.getMessage());
            return locked.skipValue();
        } catch (LockNotAcquiredException e) {
            if (invocation.ran() || e.getCause() instanceof InterruptedException) {
                throw e; // the method's own exception, or an interrupted wait
            }
            RuntimeException failure = notAcquired.apply(e);
            if (failure == null) {
                return locked.skipValue();
            }
            throw failure;
        }
    }

    /** The exception for a lock that was not acquired in time, or null when the method skips instead. */
    static RuntimeException notAcquired(LockedMethod locked, LockRegistry registry, String key) {
        if (locked.onFailure() == OnFailure.SKIP) {
            log.debug("Skipped {}: lock '{}' is held elsewhere", LockedMethod.describe(locked.method()), key);
            return null;
        }
        return new MethodLockNotAcquiredException(
                key, registry, locked.waitTime(), LockedMethod.describe(locked.method()), holderOf(registry, key));
    }

    /** Who holds the key, for the message. Empty when the backend cannot tell or does not answer. */
    private static Optional<LockHolder> holderOf(LockRegistry registry, String key) {
        try {
            return registry.holderOf(key);
        } catch (RuntimeException e) {
            log.debug("Could not learn who holds lock '{}'", key, e);
            return Optional.empty();
        }
    }

    /** True for a method a Spring scheduler runs, where nobody but the log hears of a failure. */
    private boolean scheduled(LockedMethod locked) {
        return scheduledMethods.computeIfAbsent(
                locked.method(),
                method -> AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                        || AnnotatedElementUtils.hasAnnotation(method, Schedules.class));
    }
}
