package dev.distlock.core.multi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link MultiLock#acquireAsync} call. Asks for the keys one after another, each with {@link
 * FencedLock#acquireAsync} and the time left, from the completion of the one before, so no thread waits. Ends
 * once, with every key, with nothing (a key not acquired in time, a failure: the keys taken are released first),
 * or cancelled (the pending attempt is cancelled, which releases its grant, and the keys taken are released).
 */
final class AsyncMultiAcquisition {

    private static final Logger log = LoggerFactory.getLogger(AsyncMultiAcquisition.class);

    private final MultiLock multi;
    private final Duration waitTime;
    /** The keys' fixed lease. Empty when the watchdog renews it. */
    private final Optional<Duration> leaseTime;

    private final long startNanos = System.nanoTime();
    private final CompletableFuture<Optional<MultiLockHandle>> result = new CompletableFuture<>();

    /** The keys' holds taken so far, in order. Guarded by this. */
    private final List<LockHandle> taken = new ArrayList<>();

    /** The attempt in flight. Guarded by this. */
    private CompletableFuture<Optional<LockHandle>> pending;

    /** True once the outcome is decided (every key, nothing, or cancelled). Guarded by this. */
    private boolean over;

    AsyncMultiAcquisition(MultiLock multi, Duration waitTime, Optional<Duration> leaseTime) {
        this.multi = multi;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
    }

    CompletableFuture<Optional<MultiLockHandle>> start() {
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                withdraw();
            }
        });
        request(0);
        return result;
    }

    private void request(int index) {
        FencedLock lock = multi.locks().get(index);
        Duration wait = MultiLock.waitFor(index, waitTime, startNanos);
        CompletableFuture<Optional<LockHandle>> attempt;
        synchronized (this) {
            if (over) {
                return;
            }
            if (wait == null) {
                attempt = CompletableFuture.completedFuture(Optional.empty()); // no time left to ask for this key
            } else {
                try {
                    attempt = leaseTime.isEmpty() ? lock.acquireAsync(wait) : lock.acquireAsync(wait, leaseTime.get());
                } catch (RuntimeException e) {
                    attempt = CompletableFuture.failedFuture(e);
                }
                pending = attempt;
            }
        }
        attempt.whenComplete((acquired, error) -> granted(index, acquired, error));
    }

    /** The attempt for key {@code index} ended. Goes on to the next key, or ends the whole call. */
    private void granted(int index, Optional<LockHandle> acquired, Throwable error) {
        LockHandle handle = error == null ? acquired.orElse(null) : null;
        List<LockHandle> release;
        MultiLockHandle whole = null;
        synchronized (this) {
            if (over) {
                release = handle == null ? List.of() : List.of(handle); // cancelled meanwhile. Ours to release
            } else if (handle == null) {
                over = true;
                release = new ArrayList<>(taken);
                taken.clear();
            } else {
                taken.add(handle);
                if (taken.size() < multi.locks().size()) {
                    release = null;
                } else {
                    over = true;
                    whole = new MultiLockHandle(multi.backend(), taken);
                    taken.clear();
                    release = List.of();
                }
            }
        }
        if (release == null) {
            request(index + 1);
        } else if (whole != null) {
            if (!result.complete(Optional.of(whole))) {
                releaseWithdrawn(List.of(whole::close)); // cancelled just before the last grant came
            }
        } else if (!result.isDone()) {
            end(release, error);
        } else {
            releaseWithdrawn(closers(release));
        }
    }

    /** Releases what was taken, then completes with nothing, or with the failure. */
    private void end(List<LockHandle> release, Throwable error) {
        RuntimeException releaseFailure = MultiLockHandle.releaseInReverse(release);
        Throwable failure = unwrap(error);
        if (failure != null) {
            if (releaseFailure != null) {
                failure.addSuppressed(releaseFailure);
            }
            result.completeExceptionally(failure);
        } else if (releaseFailure != null) {
            result.completeExceptionally(releaseFailure);
        } else {
            result.complete(Optional.empty());
        }
    }

    /** The caller cancelled the result. Withdraws the attempt in flight and releases what was taken. */
    private void withdraw() {
        CompletableFuture<Optional<LockHandle>> inFlight;
        List<LockHandle> release;
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
            inFlight = pending;
            release = new ArrayList<>(taken);
            taken.clear();
        }
        if (inFlight != null) {
            inFlight.cancel(true); // the attempt releases a grant that comes after this
        }
        releaseWithdrawn(closers(release));
    }

    private void releaseWithdrawn(List<Runnable> closers) {
        for (int i = closers.size() - 1; i >= 0; i--) {
            try {
                closers.get(i).run();
            } catch (RuntimeException e) {
                log.warn(
                        "A cancelled acquisition of locks {} on {} could not release what it took: {}",
                        multi.keys(),
                        multi.backend(),
                        e.getMessage());
            }
        }
    }

    private static List<Runnable> closers(List<LockHandle> handles) {
        List<Runnable> closers = new ArrayList<>(handles.size());
        for (LockHandle handle : handles) {
            closers.add(handle::close);
        }
        return closers;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
