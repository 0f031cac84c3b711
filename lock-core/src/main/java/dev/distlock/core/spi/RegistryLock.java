package dev.distlock.core.spi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The {@link FencedLock} of one key; a thin view, all state lives in the registry's engine. */
final class RegistryLock implements FencedLock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final LockRegistrySupport.Engine<?> engine;
    final String key;
    final String fullKey;

    RegistryLock(LockRegistrySupport.Engine<?> engine, String key, String fullKey) {
        this.engine = engine;
        this.key = key;
        this.fullKey = fullKey;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        while (true) {
            Optional<LockHandle> handle = engine.acquire(this, FOREVER, engine.options.leaseTime(), true);
            if (handle.isPresent()) {
                return handle.get();
            }
        }
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
        return engine.acquire(this, waitTime, engine.options.leaseTime(), true);
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return engine.acquire(this, waitTime, leaseTime, false);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Hold<?> hold = currentHold();
        return hold != null && hold.isValid();
    }

    @Override
    public int holdCount() {
        Hold<?> hold = currentHold();
        return hold == null ? 0 : hold.count();
    }

    @Override
    public Optional<FencingToken> currentToken() {
        return Optional.ofNullable(currentHold()).map(hold -> hold.lease.token());
    }

    private Hold<?> currentHold() {
        KeyState<?> state = engine.keys.get(fullKey);
        return state == null ? null : state.ownedBy(Thread.currentThread());
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    acquire();
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

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire();
    }

    @Override
    public boolean tryLock() {
        try {
            return tryAcquire(Duration.ZERO).isPresent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        // As Lock specifies: a time of zero or less means "don't wait".
        return tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time)))).isPresent();
    }

    @Override
    public void unlock() {
        engine.unlock(this);
    }

    @Override
    public String toString() {
        return "FencedLock[" + key + " on " + engine.describe() + "]";
    }
}
