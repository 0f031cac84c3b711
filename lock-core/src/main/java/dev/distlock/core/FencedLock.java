package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant, leased distributed lock on one key. The owner is the calling thread of one registry. Besides {@link
 * Lock}, it hands out {@link LockHandle}s that carry the {@link FencingToken} of the hold.
 *
 * <p>A thread whose hold lost its lease and that acquires the key again gets a fresh hold with a larger token when
 * the key is free, and an empty result when another owner holds it. Handles from before the loss stay invalid
 * (contract 4, "Acquiring again after a loss", in {@code docs/contract.md}).
 *
 * <p>{@link #unlock()} by a thread that holds nothing throws {@link IllegalMonitorStateException}. {@link
 * #newCondition()} is not supported.
 */
public interface FencedLock extends Lock {

    /** The key as the caller named it. */
    String key();

    /** Waits as long as it takes. The watchdog renews the lease while the key is held. */
    LockHandle acquire() throws InterruptedException;

    /** Waits at most {@code waitTime}. The watchdog renews the lease while the key is held. */
    Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Waits at most {@code waitTime}. The lease ends after {@code leaseTime} and is not renewed. A reentrant
     * acquisition keeps the lease of the hold it joins.
     */
    Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Acquires without blocking the calling thread. The hold belongs to the returned handle, not to a thread, so any
     * thread may close it. Not reentrant, so each call is a new hold that excludes every other hold of the key,
     * thread-owned or not. The watchdog renews the lease. Cancelling the returned stage's future before it completes abandons the attempt
     * and releases whatever it took.
     *
     * @return the handle, or empty when {@code waitTime} ran out
     */
    CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime);

    /** As {@link #acquireAsync(Duration)}, with a fixed lease that is not renewed. */
    CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, Duration leaseTime);

    /**
     * As {@link #acquireAsync(Duration)}, on the calling thread. It waits at most {@code waitTime}. The hold belongs
     * to the returned handle, not to this thread, so any thread may close it (a permit, say, or a hold passed to
     * another thread). Not reentrant, like an asynchronous hold. Interrupting the caller abandons the attempt as
     * cancelling {@link #acquireAsync}'s future does, and throws {@link InterruptedException}.
     *
     * @return the handle, or empty when {@code waitTime} ran out
     */
    default Optional<LockHandle> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        return awaitDetached(acquireAsync(waitTime));
    }

    /** As {@link #tryAcquireDetached(Duration)}, with a fixed lease that is not renewed. */
    default Optional<LockHandle> tryAcquireDetached(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return awaitDetached(acquireAsync(waitTime, leaseTime));
    }

    /**
     * A zero-wait take of this key with a lease renewed by the watchdog, granted only while nobody holds {@code
     * guardKey}. The server checks that key and takes this one in one atomic step. So a hold of {@code guardKey} that
     * begins before the take is never overtaken. The hold belongs to the returned handle, as with {@link
     * #tryAcquireDetached(Duration)}, and is not reentrant.
     *
     * @param guardKey another key of the same registry, which this call only reads
     * @return the handle, or empty (nothing taken) when this key or {@code guardKey} is held
     * @throws UnsupportedOperationException when the backend cannot check both keys in one step (a Redis Cluster,
     *     whose keys live on different nodes, or ZooKeeper). Then read {@link LockRegistry#holderOf} beside a plain
     *     take instead.
     */
    default Optional<LockHandle> tryAcquireUnlessHeld(String guardKey) throws InterruptedException {
        throw unlessHeldUnsupported();
    }

    /**
     * As {@link #tryAcquireUnlessHeld(String)}, with a fixed lease that is not renewed.
     *
     * @param guardKey another key of the same registry, which this call only reads
     * @param leaseTime the fixed lease. Null asks for the watchdog lease, as {@link #tryAcquireUnlessHeld(String)}
     *     does.
     * @return the handle, or empty (nothing taken) when this key or {@code guardKey} is held
     * @throws UnsupportedOperationException when the backend cannot check both keys in one step
     */
    default Optional<LockHandle> tryAcquireUnlessHeld(String guardKey, Duration leaseTime) throws InterruptedException {
        throw unlessHeldUnsupported();
    }

    private UnsupportedOperationException unlessHeldUnsupported() {
        return new UnsupportedOperationException("Lock '" + key() + "' on " + backendName()
                + " cannot be taken on the condition that another key is free");
    }

    private static Optional<LockHandle> awaitDetached(CompletableFuture<Optional<LockHandle>> attempt)
            throws InterruptedException {
        try {
            return attempt.get();
        } catch (InterruptedException e) {
            if (!attempt.cancel(false) && !attempt.isCompletedExceptionally()) {
                attempt.join().ifPresent(LockHandle::close); // granted as the caller was interrupted
            }
            throw e;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * This lock, with every new hold recording {@code note} on the server beside the holder description. {@link
     * LockRegistry#holderOf(String)} of any instance reads it back as {@link LockHolder#note()}. A note may be a
     * leader's URL, say, or what the holder is doing. A reentrant acquisition joins its hold and keeps that hold's note. The
     * returned lock is otherwise this lock (same key, same holds).
     *
     * @param note printable ASCII, at most {@link LockHolder#MAX_NOTE_LENGTH} characters
     * @throws IllegalArgumentException naming the key and the backend when the note is empty, too long or not
     *     printable ASCII
     * @throws UnsupportedOperationException when this kind of lock records no notes
     */
    default FencedLock withNote(String note) {
        throw new UnsupportedOperationException(
                "Lock '" + key() + "' on " + backendName() + " records no notes; use a plain lock of the registry");
    }

    /** True when the current thread holds the key and its lease is not known to be lost. */
    boolean isHeldByCurrentThread();

    /** How many holds the current thread has on this key (0 when none). */
    int holdCount();

    /** The token of the current thread's hold, for callers that use {@link #lock()}. */
    Optional<FencingToken> currentToken();

    /**
     * Runs {@code task} while holding this lock with a watchdog lease, waiting at most {@code waitTime}.
     *
     * @throws LockNotAcquiredException if the key did not come free in time, or the thread was interrupted while
     *     waiting (the interrupt flag is set again)
     */
    default <T, E extends Throwable> T executeLocked(Duration waitTime, LockedTask<T, E> task) throws E {
        Optional<LockHandle> acquired;
        try {
            acquired = tryAcquire(waitTime);
        } catch (InterruptedException e) {
            throw interruptedWhileWaiting(waitTime, e);
        }
        return runHolding(acquired, waitTime, task);
    }

    /**
     * As {@link #executeLocked(Duration, LockedTask)}, with a fixed lease of {@code leaseTime}. A null {@code
     * leaseTime} asks for the watchdog lease.
     */
    default <T, E extends Throwable> T executeLocked(Duration waitTime, Duration leaseTime, LockedTask<T, E> task)
            throws E {
        if (leaseTime == null) {
            return executeLocked(waitTime, task);
        }
        Optional<LockHandle> acquired;
        try {
            acquired = tryAcquire(waitTime, leaseTime);
        } catch (InterruptedException e) {
            throw interruptedWhileWaiting(waitTime, e);
        }
        return runHolding(acquired, waitTime, task);
    }

    private LockNotAcquiredException interruptedWhileWaiting(Duration waitTime, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new LockNotAcquiredException(key(), backendName(), waitTime, e);
    }

    private <T, E extends Throwable> T runHolding(
            Optional<LockHandle> acquired, Duration waitTime, LockedTask<T, E> task) throws E {
        try (LockHandle handle =
                acquired.orElseThrow(() -> new LockNotAcquiredException(key(), backendName(), waitTime))) {
            return task.run(handle);
        }
    }

    /** The backend's name, for messages. */
    String backendName();

    /** Not supported, because a distributed lock has no condition variables. */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("Distributed lock '" + key() + "' does not support conditions");
    }
}
