package dev.distlock.core.multi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory registry whose keys can be told to fail: their acquisition throws, or their release throws after
 * releasing. Its handles record their lease-loss callbacks, so a test can lose a key when it chooses. Cancelling
 * its asynchronous acquisitions does not reach the memory registry's: tests of cancellation use that one directly.
 */
final class FaultyRegistry implements LockRegistry {

    final MemoryLockRegistry memory;
    final Set<String> failingAcquisitions = ConcurrentHashMap.newKeySet();
    final Set<String> failingReleases = ConcurrentHashMap.newKeySet();
    final List<RecordingHandle> handles = new CopyOnWriteArrayList<>();

    FaultyRegistry(MemoryLockRegistry memory) {
        this.memory = memory;
    }

    @Override
    public FencedLock obtain(String key) {
        return new Lock(memory.obtain(key));
    }

    @Override
    public String backend() {
        return "memory";
    }

    @Override
    public void close() {
        memory.close();
    }

    /** The recorded handle of {@code key}'s latest hold. */
    RecordingHandle handleOf(String key) {
        for (int i = handles.size() - 1; i >= 0; i--) {
            if (handles.get(i).key().equals(key)) {
                return handles.get(i);
            }
        }
        throw new AssertionError("no hold of " + key);
    }

    private LockBackendException failure(String key, String what) {
        return new LockBackendException("memory", "test", key, what + " failed on purpose");
    }

    private Optional<LockHandle> record(Optional<LockHandle> handle) {
        return handle.map(h -> {
            RecordingHandle recording = new RecordingHandle(h);
            handles.add(recording);
            return recording;
        });
    }

    /** A handle that keeps its lease-loss callbacks for {@link #lose()}, and fails its release when told to. */
    final class RecordingHandle implements LockHandle {

        private final LockHandle delegate;
        private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        RecordingHandle(LockHandle delegate) {
            this.delegate = delegate;
        }

        void lose() {
            callbacks.forEach(Runnable::run);
        }

        @Override
        public String key() {
            return delegate.key();
        }

        @Override
        public FencingToken token() {
            return delegate.token();
        }

        @Override
        public boolean isValid() {
            return delegate.isValid();
        }

        @Override
        public void onLost(Runnable callback) {
            callbacks.add(callback);
            delegate.onLost(callback);
        }

        @Override
        public boolean extend(Duration leaseTime) {
            return delegate.extend(leaseTime);
        }

        @Override
        public void holdAtLeast(Duration minimum) {
            delegate.holdAtLeast(minimum);
        }

        @Override
        public void close() {
            closed = true;
            delegate.close();
            if (failingReleases.contains(key())) {
                throw failure(key(), "release");
            }
        }
    }

    private final class Lock implements FencedLock {

        private final FencedLock delegate;

        Lock(FencedLock delegate) {
            this.delegate = delegate;
        }

        private void check() {
            if (failingAcquisitions.contains(key())) {
                throw failure(key(), "acquisition");
            }
        }

        @Override
        public String key() {
            return delegate.key();
        }

        @Override
        public LockHandle acquire() throws InterruptedException {
            check();
            return record(Optional.of(delegate.acquire())).orElseThrow();
        }

        @Override
        public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
            check();
            return record(delegate.tryAcquire(waitTime));
        }

        @Override
        public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
            check();
            return record(delegate.tryAcquire(waitTime, leaseTime));
        }

        @Override
        public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime) {
            if (failingAcquisitions.contains(key())) {
                return CompletableFuture.failedFuture(failure(key(), "acquisition"));
            }
            return delegate.acquireAsync(waitTime).thenApply(FaultyRegistry.this::record);
        }

        @Override
        public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, Duration leaseTime) {
            return delegate.acquireAsync(waitTime, leaseTime).thenApply(FaultyRegistry.this::record);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return delegate.isHeldByCurrentThread();
        }

        @Override
        public int holdCount() {
            return delegate.holdCount();
        }

        @Override
        public Optional<FencingToken> currentToken() {
            return delegate.currentToken();
        }

        @Override
        public String backendName() {
            return delegate.backendName();
        }

        @Override
        public void lock() {
            delegate.lock();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            delegate.lockInterruptibly();
        }

        @Override
        public boolean tryLock() {
            return delegate.tryLock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return delegate.tryLock(time, unit);
        }

        @Override
        public void unlock() {
            delegate.unlock();
        }
    }
}
