package dev.distlock.shedlock;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One ShedLock lock over a distlock hold. As ShedLock requires, it is used up by {@link #unlock()}
 * or by a successful {@link #extend}, which hands back a new lock for the same hold. Using it again
 * then throws {@link IllegalStateException}.
 */
final class FencedSimpleLock implements SimpleLock {

    private final LockHandle handle;
    private final long acquiredAtNanos;
    private final AtomicBoolean used = new AtomicBoolean();

    private FencedSimpleLock(LockHandle handle, long acquiredAtNanos) {
        this.handle = handle;
        this.acquiredAtNanos = acquiredAtNanos;
    }

    static FencedSimpleLock acquired(LockHandle handle, Duration lockAtLeastFor) {
        FencedSimpleLock lock = new FencedSimpleLock(handle, System.nanoTime());
        lock.holdAtLeast(lockAtLeastFor);
        return lock;
    }

    @Override
    public void unlock() {
        use();
        handle.close();
    }

    /**
     * Makes the lease end {@code lockAtMostFor} from now and the minimum hold end at least
     * {@code lockAtLeastFor} from now.
     *
     * @return the lock to use from now on, or empty when the lease was already lost (the key is then
     *     released here, which never frees another holder's lock)
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        use();
        if (!handle.extend(lockAtMostFor)) {
            handle.close();
            return Optional.empty();
        }
        holdAtLeast(Duration.ofNanos(System.nanoTime() - acquiredAtNanos).plus(lockAtLeastFor));
        return Optional.of(new FencedSimpleLock(handle, acquiredAtNanos));
    }

    private void holdAtLeast(Duration minimum) {
        if (!minimum.isNegative() && !minimum.isZero()) {
            handle.holdAtLeast(minimum);
        }
    }

    private void use() {
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("ShedLock lock '" + handle.key()
                    + "' was already unlocked or extended; use the lock that extend() returned");
        }
    }

    @Override
    public String toString() {
        return "FencedSimpleLock[" + handle + "]";
    }
}
