package dev.distlock.core.spi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.LockEngine;
import dev.distlock.core.rw.ReadWriteLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The base of every backend's public registry class: it hands the backend to the shared
 * {@link LockEngine}, which supplies reentrancy, the local gate per key, owner ids, lease keeping
 * and lease-loss marking. A backend's registry adds only its builder and what it owns.
 */
public class LockRegistrySupport implements LockRegistry {

    private final LockEngine<?> engine;
    private final ReadWriteLocks readWriteLocks;

    protected <L extends BackendLease> LockRegistrySupport(LockBackend<L> backend, RegistryOptions options) {
        this(backend, null, options);
    }

    /** A registry that also offers read/write locks, served by {@code readWriteLocks} and closed with it. */
    protected <L extends BackendLease> LockRegistrySupport(
            LockBackend<L> backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        this.engine = new LockEngine<>(backend, options);
        this.readWriteLocks = readWriteLocks;
    }

    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        if (readWriteLocks == null) {
            return LockRegistry.super.readWriteLock(key);
        }
        return readWriteLocks.lock(key);
    }

    @Override
    public FencedLock obtain(String key) {
        return engine.lock(key);
    }

    @Override
    public String backend() {
        return engine.backendName();
    }

    /** The registry's settings. */
    public RegistryOptions options() {
        return engine.options();
    }

    @Override
    public void verify(Duration timeout) {
        engine.verify(timeout);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return engine.holderOf(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    @Override
    public List<HoldInfo> holds() {
        if (readWriteLocks == null) {
            return engine.holds();
        }
        List<HoldInfo> holds = new ArrayList<>(engine.holds());
        holds.addAll(readWriteLocks.holds());
        return holds;
    }

    @Override
    public void addObserver(LockObserver observer) {
        engine.addObserver(observer);
        if (readWriteLocks != null) {
            readWriteLocks.addObserver(observer);
        }
    }

    /** Keys this registry currently tracks locally (held or waited for); idle keys are not kept. */
    protected int trackedKeys() {
        return engine.trackedKeys();
    }

    @Override
    public void close() {
        if (readWriteLocks != null) {
            readWriteLocks.close();
        }
        engine.close();
    }

    /**
     * Waits at most {@code timeout}, after {@link #close()}, until the holds that linger for their
     * minimum have ended and the backend is closed; true when they have.
     */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        boolean closed = engine.awaitClosed(timeout);
        if (readWriteLocks != null) {
            closed &= readWriteLocks.awaitClosed(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        }
        return closed;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + engine.backendName() + " at " + engine.backendAddress() + "]";
    }
}
