package dev.distlock.spring.aspect;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code @DistributedLock} methods that return a {@code CompletionStage}, locked without blocking the caller until the
 * returned stage ends.
 */
final class AsyncLockedCalls {

    private static final Logger log = LoggerFactory.getLogger(AsyncLockedCalls.class);

    private AsyncLockedCalls() {}

    static CompletableFuture<Object> completionStage(
            FencedLock lock, LockedMethod locked, MethodInvocation invocation, Supplier<RuntimeException> notAcquired) {
        CompletableFuture<Optional<LockHandle>> acquiring = acquire(lock, locked);
        CompletableFuture<Object> result = new CompletableFuture<>();
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                acquiring.cancel(true);
            }
        });
        acquiring.whenComplete((acquired, error) -> {
            if (error != null) {
                result.completeExceptionally(unwrap(error));
            } else if (acquired.isEmpty()) {
                RuntimeException failure = notAcquired.get();
                if (failure == null) {
                    result.complete(null);
                } else {
                    result.completeExceptionally(failure);
                }
            } else {
                run(acquired.get(), locked, invocation, result);
            }
        });
        return result;
    }

    /** Starts the method under {@code handle} and releases it when the method's own stage ends. */
    private static void run(
            LockHandle handle, LockedMethod locked, MethodInvocation invocation, CompletableFuture<Object> result) {
        LockedInvocation.startHold(handle, locked);
        CompletionStage<?> work;
        HeldLocks.push(handle);
        try {
            work = (CompletionStage<?>) invocation.proceed();
        } catch (Throwable e) {
            release(handle);
            result.completeExceptionally(e);
            return;
        } finally {
            HeldLocks.pop(handle);
        }
        if (work == null) {
            release(handle);
            result.complete(null);
            return;
        }
        work.whenComplete((value, error) -> {
            release(handle);
            if (error != null) {
                result.completeExceptionally(unwrap(error));
            } else {
                result.complete(value);
            }
        });
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                work.toCompletableFuture().cancel(true);
                release(handle);
            }
        });
    }

    static CompletableFuture<Optional<LockHandle>> acquire(FencedLock lock, LockedMethod locked) {
        return locked.leaseTime() == null
                ? lock.acquireAsync(locked.waitTime())
                : lock.acquireAsync(locked.waitTime(), locked.leaseTime());
    }

    /** Releases a handle-owned hold. A failing release is logged, and the work's outcome stands. */
    static void release(LockHandle handle) {
        try {
            handle.close();
        } catch (RuntimeException e) {
            log.warn("Could not release lock '{}': {}", handle.key(), e.getMessage());
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
