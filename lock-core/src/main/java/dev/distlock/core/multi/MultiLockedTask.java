package dev.distlock.core.multi;

/**
 * Work run while holding every key of a {@link MultiLock}, by {@link MultiLock#executeLocked}. The handle
 * gives each key's fencing token.
 *
 * @param <T> the result
 * @param <E> what the work may throw. Inferred, so plain lambdas throw nothing checked
 */
@FunctionalInterface
public interface MultiLockedTask<T, E extends Throwable> {

    T run(MultiLockHandle locks) throws E;
}
