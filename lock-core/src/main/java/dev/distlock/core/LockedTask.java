package dev.distlock.core;

/**
 * Work run under a lock by {@link LockRegistry#executeLocked}. The handle gives the
 * fencing token to pass to the protected resource.
 *
 * @param <T> the result
 * @param <E> what the work may throw; inferred, so plain lambdas throw nothing checked
 */
@FunctionalInterface
public interface LockedTask<T, E extends Throwable> {

    T run(LockHandle lock) throws E;
}
