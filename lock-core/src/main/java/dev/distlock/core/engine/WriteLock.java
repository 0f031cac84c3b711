package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The write side of a read/write lock. It is the engine's lock, except that a thread whose only live hold on the key
 * is a read is refused before it waits, since an upgrade could wait forever. A thread that holds the write lock may
 * take it again.
 */
final class WriteLock implements FencedLock {

    private final FencedLock write;
    private final FencedLock read;

    WriteLock(FencedLock write, FencedLock read) {
        this.write = write;
        this.read = read;
    }

    private void refuseUpgrade() {
        if (read.holdCount() == 0 || write.isHeldByCurrentThread()) {
            return;
        }
        String thread = Thread.currentThread().getName();
        if (write.holdCount() > 0) {
            // The write hold was lost after a downgrade. A new write hold would wait for the thread's own read hold.
            throw new IllegalStateException("Thread " + thread + " holds the read lock of '" + key() + "' ("
                    + write + ") and asked for its write lock again after its write hold was lost: a read lock"
                    + " cannot be upgraded. Release the write lock and the read lock, then take the write lock.");
        }
        throw new IllegalStateException("Thread " + thread + " holds the read lock of '" + key() + "' (" + write
                + ") and asked for its write lock: a read lock cannot be upgraded, as two readers doing so"
                + " would wait for each other forever. Release the read lock first, or take the write lock"
                + " first and then the read lock (downgrade).");
    }

    @Override
    public String key() {
        return write.key();
    }

    @Override
    public String backendName() {
        return write.backendName();
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        refuseUpgrade();
        return write.acquire();
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
        refuseUpgrade();
        return write.tryAcquire(waitTime);
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        refuseUpgrade();
        return write.tryAcquire(waitTime, leaseTime);
    }

    /** A handle-owned hold belongs to no thread, so it is no upgrade and waits for every reader. */
    @Override
    public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime) {
        return write.acquireAsync(waitTime);
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, Duration leaseTime) {
        return write.acquireAsync(waitTime, leaseTime);
    }

    @Override
    public Optional<LockHandle> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        return write.tryAcquireDetached(waitTime);
    }

    @Override
    public Optional<LockHandle> tryAcquireDetached(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return write.tryAcquireDetached(waitTime, leaseTime);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return write.isHeldByCurrentThread();
    }

    @Override
    public int holdCount() {
        return write.holdCount();
    }

    @Override
    public Optional<FencingToken> currentToken() {
        return write.currentToken();
    }

    @Override
    public void lock() {
        refuseUpgrade();
        write.lock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        refuseUpgrade();
        write.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        refuseUpgrade();
        return write.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        refuseUpgrade();
        return write.tryLock(time, unit);
    }

    @Override
    public void unlock() {
        write.unlock();
    }

    @Override
    public String toString() {
        return write.toString();
    }
}
