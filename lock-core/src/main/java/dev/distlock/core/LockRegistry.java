package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;

/**
 * The entry point: hands out {@link FencedLock}s by key for one backend. Thread-safe;
 * one instance per application and backend is the normal use. The semantics every
 * backend keeps are written down in DESIGN.md (see the package documentation).
 */
public interface LockRegistry extends AutoCloseable {

    /**
     * The lock for {@code key}. Cheap: locks of idle keys hold no memory in the registry.
     *
     * @throws IllegalArgumentException if the key is null, blank or longer than the backend allows
     */
    FencedLock obtain(String key);

    /** The backend's name: "redis", "zookeeper", "etcd", "jdbc" or "memory". */
    String backend();

    /**
     * Runs {@code task} while holding {@code key}, waiting at most {@code waitTime} for it.
     *
     * @throws LockNotAcquiredException if the key did not come free in time, or the thread
     *     was interrupted while waiting (the interrupt flag is set again)
     */
    default <T, E extends Throwable> T executeLocked(String key, Duration waitTime, LockedTask<T, E> task) throws E {
        FencedLock lock = obtain(key);
        Optional<LockHandle> acquired;
        try {
            acquired = lock.tryAcquire(waitTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, backend(), waitTime, e);
        }
        try (LockHandle handle = acquired.orElseThrow(() -> new LockNotAcquiredException(key, backend(), waitTime))) {
            return task.run(handle);
        }
    }

    /** Stops lease renewal and releases every hold this registry still has. */
    @Override
    void close();
}
