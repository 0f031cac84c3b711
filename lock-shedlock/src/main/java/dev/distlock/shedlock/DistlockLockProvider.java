package dev.distlock.shedlock;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's lock provider over any distlock registry, so {@code @SchedulerLock} jobs run on
 * distlock's backends and get a fencing token ({@link #currentToken(String)} inside the job).
 *
 * <p>A lock is the key {@code name} with a fixed lease of {@code lockAtMostFor}, counted from the
 * acquisition. {@code lockAtLeastFor} is a minimum hold. Unlocked earlier, the key stays held on
 * the server until that time after the acquisition, without keeping a thread busy. As in ShedLock,
 * a lock is not reentrant. The thread that holds a name gets nothing when it asks again. Extension
 * ({@link SimpleLock#extend}) makes the lease end {@code lockAtMostFor} from now.
 */
public final class DistlockLockProvider implements ExtensibleLockProvider {

    private final LockRegistry registry;

    public DistlockLockProvider(LockRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Takes {@code name} without waiting. Empty when another holder (or this thread) has it. */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        FencedLock lock = registry.obtain(configuration.getName());
        if (lock.isHeldByCurrentThread()) {
            return Optional.empty();
        }
        Optional<LockHandle> handle;
        try {
            handle = lock.tryAcquire(Duration.ZERO, configuration.getLockAtMostFor());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        return handle.map(held -> FencedSimpleLock.acquired(held, configuration.getLockAtLeastFor()));
    }

    /**
     * The fencing token of the current thread's lock on {@code name}. Inside a job run under that
     * lock, the token to pass with each write so a resource can refuse a holder that overran.
     */
    public Optional<FencingToken> currentToken(String name) {
        return registry.obtain(name).currentToken();
    }

    /** The distlock registry underneath. */
    public LockRegistry registry() {
        return registry;
    }

    @Override
    public String toString() {
        return "DistlockLockProvider[" + registry + "]";
    }
}
