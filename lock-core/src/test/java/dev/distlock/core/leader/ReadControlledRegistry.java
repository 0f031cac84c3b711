package dev.distlock.core.leader;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registry over another whose {@code holderOf} the test controls: it counts the reads, and can fail them (an
 * outage), hold them until released (a silent server), or answer from a script before asking the real registry.
 */
final class ReadControlledRegistry implements LockRegistry {

    private final LockRegistry delegate;
    private final AtomicInteger reads = new AtomicInteger();
    private final Deque<Optional<LockHolder>> script = new ArrayDeque<>();
    private volatile boolean failing;
    private volatile CountDownLatch held;

    ReadControlledRegistry(LockRegistry delegate) {
        this.delegate = delegate;
    }

    /** How many reads started. */
    int reads() {
        return reads.get();
    }

    /** From now on every read fails with a backend error, until {@link #recover()}. */
    void fail() {
        failing = true;
    }

    void recover() {
        failing = false;
    }

    /** From now on reads wait until {@link #answer()}. */
    void holdReads() {
        held = new CountDownLatch(1);
    }

    /** Lets the held reads go on. */
    void answer() {
        CountDownLatch latch = held;
        held = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /** The next reads answer these, in order, before reads go to the real registry again. */
    synchronized void script(Optional<LockHolder> answer) {
        script.add(answer);
    }

    private synchronized Optional<LockHolder> scripted() {
        return script.poll();
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        reads.incrementAndGet();
        CountDownLatch latch = held;
        if (latch != null) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failing) {
            throw new LockBackendException(backend(), "test address", key, "connection refused");
        }
        Optional<LockHolder> answer = scripted();
        return answer != null ? answer : delegate.holderOf(key);
    }

    @Override
    public FencedLock obtain(String key) {
        return delegate.obtain(key);
    }

    @Override
    public FencedLock semaphoreLock(String key) {
        return delegate.semaphoreLock(key);
    }

    @Override
    public String backend() {
        return delegate.backend();
    }

    @Override
    public void close() {
        answer();
        delegate.close();
    }
}
