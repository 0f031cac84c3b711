package dev.distlock.core.multi;

import dev.distlock.core.DurationText;
import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Several keys of one registry taken all or nothing. The keys are de-duplicated and always taken in one global
 * order, their natural {@code String} order, whatever order the caller names them in. Two callers that take
 * overlapping sets never wait for each other in a cycle, so they never deadlock.
 *
 * <p>One deadline covers the whole set. Each key waits only for the time left, so a call ends within its wait time
 * plus the overrun a single acquisition may have (contract 8). When a key is not acquired in time, or the call fails
 * or is interrupted, every key taken so far is released, last first, before the call returns or throws. Nothing
 * stays held.
 *
 * <p>{@link #tryAcquire} holds belong to the calling thread and are reentrant per key, as {@link
 * FencedLock#tryAcquire} holds are; {@link #acquireAsync} holds belong to the returned handle (contract 12). A
 * {@code MultiLock} is cheap and immutable. Make one per set of keys and call it from any thread. See {@code
 * docs/multi-key-locks.md}.
 */
public final class MultiLock {

    private final LockRegistry registry;
    private final List<String> keys;
    private final List<FencedLock> locks;

    private MultiLock(LockRegistry registry, List<String> keys) {
        this.registry = registry;
        this.keys = keys;
        List<FencedLock> obtained = new ArrayList<>(keys.size());
        for (String key : keys) {
            obtained.add(registry.obtain(key)); // the backend's own key checks (length, ...) apply here
        }
        this.locks = List.copyOf(obtained);
    }

    /**
     * The set of {@code keys} on {@code registry}.
     *
     * @throws IllegalArgumentException for a null or empty collection, a null or blank key, or a key the backend
     *     refuses (too long, ...)
     */
    public static MultiLock of(LockRegistry registry, Collection<String> keys) {
        if (registry == null) {
            throw new NullPointerException("MultiLock.of needs a registry, got null (keys " + keys + ")");
        }
        if (keys == null) {
            throw new IllegalArgumentException(
                    "MultiLock on " + registry.backend() + " needs a collection of keys, got null");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException(
                    "MultiLock on " + registry.backend() + " needs at least one key, got an empty collection");
        }
        int position = 0;
        for (String key : keys) {
            position++;
            if (key == null) {
                throw new IllegalArgumentException("Key " + position + " of " + quoted(keys) + " is null ("
                        + registry.backend() + " backend): every key of a MultiLock needs a value");
            }
            if (key.isBlank()) {
                throw new IllegalArgumentException("Key " + position + " of " + quoted(keys) + " is blank ("
                        + registry.backend() + " backend): every key of a MultiLock needs a non-blank value");
            }
        }
        return new MultiLock(registry, List.copyOf(new TreeSet<>(keys)));
    }

    /** As {@link #of(LockRegistry, Collection)}. */
    public static MultiLock of(LockRegistry registry, String... keys) {
        if (keys == null) {
            return of(registry, (Collection<String>) null);
        }
        return of(registry, Arrays.asList(keys));
    }

    /** The keys, de-duplicated, in the order they are taken (their natural order). */
    public List<String> keys() {
        return keys;
    }

    /** The registry's backend name, for messages. */
    public String backend() {
        return registry.backend();
    }

    /**
     * Waits at most {@code waitTime} for every key. Each lease is renewed by the watchdog while held. The hold
     * belongs to the calling thread and is reentrant per key.
     *
     * @return the hold of every key, or empty when one was not acquired in time (nothing is held then)
     */
    public Optional<MultiLockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
        checkDuration("waitTime", waitTime, true);
        return acquire(waitTime, Optional.empty(), new Progress());
    }

    /**
     * As {@link #tryAcquire(Duration)}, with fixed leases of {@code leaseTime} that are not renewed. Each key's
     * lease counts from its own grant, so the first key's lease ends first; {@link MultiLockHandle#extend} moves
     * every end to one time.
     */
    public Optional<MultiLockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        checkDuration("waitTime", waitTime, true);
        checkDuration("leaseTime", leaseTime, false);
        return acquire(waitTime, Optional.of(leaseTime), new Progress());
    }

    /**
     * Acquires every key without blocking the calling thread. The hold belongs to the returned handle, which any
     * thread may close, and is not reentrant (contract 12). Each key's lease is renewed by the watchdog.
     * Cancelling the returned future before it completes withdraws the attempt and releases whatever it took.
     *
     * @return the hold of every key, or empty when one was not acquired within {@code waitTime}
     */
    public CompletableFuture<Optional<MultiLockHandle>> acquireAsync(Duration waitTime) {
        checkDuration("waitTime", waitTime, true);
        return new AsyncMultiAcquisition(this, waitTime, Optional.empty()).start();
    }

    /** As {@link #acquireAsync(Duration)}, with fixed leases that are not renewed. */
    public CompletableFuture<Optional<MultiLockHandle>> acquireAsync(Duration waitTime, Duration leaseTime) {
        checkDuration("waitTime", waitTime, true);
        checkDuration("leaseTime", leaseTime, false);
        return new AsyncMultiAcquisition(this, waitTime, Optional.of(leaseTime)).start();
    }

    /**
     * Runs {@code task} while holding every key (watchdog leases), waiting at most {@code waitTime}.
     *
     * @throws MultiLockNotAcquiredException if a key did not come free in time, or the thread was interrupted
     *     while waiting (the interrupt flag is set again). Nothing is held then
     */
    public <T, E extends Throwable> T executeLocked(Duration waitTime, MultiLockedTask<T, E> task) throws E {
        return run(waitTime, Optional.empty(), task);
    }

    /**
     * As {@link #executeLocked(Duration, MultiLockedTask)}, with fixed leases of {@code leaseTime} (null: the
     * watchdog lease).
     */
    public <T, E extends Throwable> T executeLocked(Duration waitTime, Duration leaseTime, MultiLockedTask<T, E> task)
            throws E {
        return run(waitTime, Optional.ofNullable(leaseTime), task);
    }

    private <T, E extends Throwable> T run(Duration waitTime, Optional<Duration> leaseTime, MultiLockedTask<T, E> task)
            throws E {
        checkDuration("waitTime", waitTime, true);
        if (leaseTime.isPresent()) {
            checkDuration("leaseTime", leaseTime.get(), false);
        }
        Progress progress = new Progress();
        Optional<MultiLockHandle> acquired;
        try {
            acquired = acquire(waitTime, leaseTime, progress);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MultiLockNotAcquiredException(keys, progress.pending, backend(), waitTime, e);
        }
        try (MultiLockHandle handle = acquired.orElseThrow(
                () -> new MultiLockNotAcquiredException(keys, progress.pending, backend(), waitTime))) {
            return task.run(handle);
        }
    }

    /** Takes the keys in order on the calling thread. Releases what it took on any way out but success. */
    private Optional<MultiLockHandle> acquire(Duration waitTime, Optional<Duration> leaseTime, Progress progress)
            throws InterruptedException {
        long start = System.nanoTime();
        List<LockHandle> taken = new ArrayList<>(locks.size());
        try {
            for (int i = 0; i < locks.size(); i++) {
                FencedLock lock = locks.get(i);
                progress.pending = lock.key();
                Duration wait = waitFor(i, waitTime, start);
                if (wait == null) {
                    break;
                }
                Optional<LockHandle> handle =
                        leaseTime.isEmpty() ? lock.tryAcquire(wait) : lock.tryAcquire(wait, leaseTime.get());
                if (handle.isEmpty()) {
                    break;
                }
                taken.add(handle.get());
            }
        } catch (Throwable e) {
            RuntimeException failure = MultiLockHandle.releaseInReverse(taken);
            if (failure != null) {
                e.addSuppressed(failure);
            }
            throw e;
        }
        if (taken.size() < locks.size()) {
            RuntimeException failure = MultiLockHandle.releaseInReverse(taken);
            if (failure != null) {
                throw failure;
            }
            return Optional.empty();
        }
        return Optional.of(new MultiLockHandle(backend(), taken));
    }

    /**
     * What key {@code index} may wait. The whole wait for the first key and for a zero wait (each key is asked once),
     * else the time left. Null when none is left, so the key is not asked for at all.
     */
    static Duration waitFor(int index, Duration waitTime, long startNanos) {
        if (index == 0 || waitTime.isZero()) {
            return waitTime;
        }
        Duration left = waitTime.minus(Duration.ofNanos(System.nanoTime() - startNanos));
        return left.isNegative() || left.isZero() ? null : left;
    }

    List<FencedLock> locks() {
        return locks;
    }

    private void checkDuration(String name, Duration value, boolean zeroAllowed) {
        if (value == null) {
            throw new IllegalArgumentException(
                    name + " must not be null (locks " + keys + ", " + backend() + " backend)");
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? "zero or more" : "positive")
                    + ", was " + DurationText.format(value) + " (locks " + keys + ", " + backend() + " backend)");
        }
    }

    private static String quoted(Collection<String> keys) {
        List<String> quoted = new ArrayList<>(keys.size());
        for (String key : keys) {
            quoted.add(key == null ? "null" : "'" + key + "'");
        }
        return "[" + String.join(", ", quoted) + "]";
    }

    /** The key a call is waiting for, to name it when the call fails. */
    private static final class Progress {
        String pending;
    }

    @Override
    public String toString() {
        return "MultiLock" + keys + " on " + backend();
    }
}
