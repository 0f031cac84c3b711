package dev.distlock.integration;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock for Spring Integration. Reentrant and owned by the calling thread like every
 * distlock lock; {@code lock()} and {@code tryLock(...)} take a lease the watchdog renews, the
 * {@link Duration} variants a fixed lease of that time-to-live.
 */
final class IntegrationLock implements DistributedLock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final FencedLock lock;
    private final Holds holds;

    IntegrationLock(FencedLock lock, Holds holds) {
        this.lock = lock;
        this.holds = holds;
    }

    /** The fencing token of the current thread's hold, to pass with writes to a resource. */
    Optional<FencingToken> currentToken() {
        return lock.currentToken();
    }

    @Override
    public void lock() {
        lockUninterruptibly(Optional.empty());
    }

    @Override
    public void lock(Duration ttl) {
        lockUninterruptibly(Optional.ofNullable(ttl));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(FOREVER, Optional.empty());
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Duration.ZERO, Optional.empty());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))), Optional.empty());
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return acquire(waitTime, Optional.ofNullable(ttl));
    }

    /**
     * Gives back the current thread's latest acquisition. After a lost lease this never throws and
     * never frees another owner's hold (distlock's release policy).
     *
     * @throws IllegalMonitorStateException when the current thread holds nothing of this key
     */
    @Override
    public void unlock() {
        Holds.Held held = holds.pop(lock.key());
        if (held == null) {
            lock.unlock(); // throws IllegalMonitorStateException naming the key and backend
            return;
        }
        held.handle().close();
    }

    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    private void lockUninterruptibly(Optional<Duration> ttl) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    acquire(FOREVER, ttl);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A thread whose hold was lost and that fails to get the key again holds nothing afterwards:
     * Spring Integration's leader initiator takes a failed attempt as the end of its leadership and
     * never unlocks the lost hold, which would otherwise stay counted and stack under the next one.
     * When the attempt succeeds, the fresh hold takes the lost one's place (its count goes on), as
     * the initiator's heartbeat expects of a leader that acquires again and unlocks once.
     */
    /** @param ttl a fixed lease. Empty when the watchdog renews it */
    private boolean acquire(Duration waitTime, Optional<Duration> ttl) throws InterruptedException {
        Optional<LockHandle> handle = ttl.isEmpty() ? lock.tryAcquire(waitTime) : lock.tryAcquire(waitTime, ttl.get());
        if (handle.isPresent()) {
            holds.push(lock.key(), handle.get(), ttl.orElse(null));
            return true;
        }
        holds.dropLost(lock.key()).forEach(lost -> lost.handle().close());
        return false;
    }

    @Override
    public String toString() {
        return "IntegrationLock[" + lock + "]";
    }
}
