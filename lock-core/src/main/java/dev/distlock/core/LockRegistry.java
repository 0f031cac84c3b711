package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The entry point, which hands out {@link FencedLock}s by key for one backend. It is thread-safe, and one instance
 * per application and backend is the normal use. Every backend keeps the contract in {@code docs/contract.md}.
 */
public interface LockRegistry extends AutoCloseable {

    /**
     * The lock for {@code key}. Cheap, because locks of idle keys hold no memory in the registry.
     *
     * @throws IllegalArgumentException if the key is null, blank, longer than the backend allows, or one that a
     *     {@link dev.distlock.core.semaphore.LeasedSemaphore} keeps ({@code <name>:permit:<slot>}, contract 15)
     */
    FencedLock obtain(String key);

    /**
     * The lock of a key that a {@link dev.distlock.core.semaphore.LeasedSemaphore} keeps, which {@link #obtain}
     * refuses. For the semaphore's own use. A lock taken here is one of its permits, its queue or its waiting mark.
     */
    default FencedLock semaphoreLock(String key) {
        return obtain(key);
    }

    /**
     * The read/write lock of {@code key}. Readers share it, and a writer excludes everyone.
     *
     * @throws UnsupportedOperationException when the backend has none
     */
    default FencedReadWriteLock readWriteLock(String key) {
        throw new UnsupportedOperationException("The " + backend() + " registry has no read/write locks");
    }

    /** The backend's name, one of "redis", "zookeeper", "etcd", "jdbc" and "memory". */
    String backend();

    /**
     * The prefix this registry puts before every key on the server ({@link RegistryOptions#keyPrefix()}), or empty.
     * Keys passed to and reported by the registry's observers carry it.
     */
    default String keyPrefix() {
        return "";
    }

    /**
     * Runs {@code task} while holding {@code key}, waiting at most {@code waitTime} for it.
     *
     * @throws LockNotAcquiredException if the key did not come free in time, or the thread
     *     was interrupted while waiting (the interrupt flag is set again)
     */
    default <T, E extends Throwable> T executeLocked(String key, Duration waitTime, LockedTask<T, E> task) throws E {
        return obtain(key).executeLocked(waitTime, task);
    }

    /**
     * Proves with one cheap call, bounded by {@code timeout}, that the backend is reachable and
     * usable (table present, scripts loadable, session established).
     *
     * @throws LockBackendException naming the backend's address and what to do, when it is not
     */
    default void verify(Duration timeout) {}

    /**
     * Who holds {@code key} right now according to the backend, whichever instance that is. Empty when nobody does.
     */
    default Optional<LockHolder> holderOf(String key) {
        throw new UnsupportedOperationException("The " + backend() + " registry cannot tell who holds a key");
    }

    /**
     * {@link #holderOf} in two steps, so that the caller can make another call while the read travels. A registry
     * that can send the read without waiting for its answer sends it now, and {@code get()} of the returned supplier
     * waits for the answer. Any other registry reads when {@code get()} is called. Either step throws what {@link
     * #holderOf} throws.
     */
    default Supplier<Optional<LockHolder>> holderOfLater(String key) {
        return () -> holderOf(key);
    }

    /**
     * Removes the lock on {@code key} whoever holds it, for evicting a crashed or stuck holder.
     * Safe with fencing, because the next holder gets a larger token. A resource that checks tokens refuses the
     * evicted holder's late writes. Logged at WARN with the evicted holder.
     *
     * @return true when a lock was there and was removed
     */
    default boolean forceRelease(String key) {
        throw new UnsupportedOperationException("The " + backend() + " registry cannot force-release a key");
    }

    /** The holds of this registry right now. */
    default List<HoldInfo> holds() {
        return List.of();
    }

    /** Adds an observer of this registry's acquisitions, holds and lease losses. */
    default void addObserver(LockObserver observer) {
        throw new UnsupportedOperationException("The " + backend() + " registry takes no observers");
    }

    /**
     * Stops lease renewal and releases every hold this registry still has. Threads waiting for a
     * key of this registry end promptly with an {@link IllegalStateException}.
     */
    @Override
    void close();
}
