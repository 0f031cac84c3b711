package dev.distlock.core.spi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.SemaphoreKeys;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The base of every backend's public registry class: it hands the backend to the shared engine,
 * which supplies reentrancy, the local gate per key, owner ids, lease keeping and lease-loss
 * marking. A backend's registry adds only its builder and what it owns.
 */
public class LockRegistrySupport implements LockRegistry {

    private final RegistryEngine engine;

    protected <L extends BackendLease> LockRegistrySupport(LockBackend<L> backend, RegistryOptions options) {
        this(backend, null, options);
    }

    /** A registry that also offers read/write locks, served by {@code readWriteLocks} and closed with it. */
    protected <L extends BackendLease> LockRegistrySupport(
            LockBackend<L> backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        // The SPI names the engine's factory, never its classes (see docs/architecture.md).
        this.engine = EngineFactory.installed().start(backend, readWriteLocks, options);
    }

    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        FencedReadWriteLock lock = engine.readWriteLock(key);
        return lock != null ? lock : LockRegistry.super.readWriteLock(key);
    }

    @Override
    public FencedLock obtain(String key) {
        SemaphoreKeys.checkNotOwnKey(key, engine.backendName());
        return engine.lock(key);
    }

    @Override
    public FencedLock semaphoreLock(String key) {
        return engine.lock(key);
    }

    @Override
    public String backend() {
        return engine.backendName();
    }

    @Override
    public String keyPrefix() {
        return engine.options().keyPrefix();
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
    public java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key) {
        return engine.holderOfLater(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    @Override
    public List<HoldInfo> holds() {
        return engine.holds();
    }

    @Override
    public void addObserver(LockObserver observer) {
        engine.addObserver(observer);
    }

    /** Keys this registry currently tracks locally (held or waited for); idle keys are not kept. */
    protected int trackedKeys() {
        return engine.trackedKeys();
    }

    @Override
    public void close() {
        engine.close();
    }

    /**
     * Waits at most {@code timeout}, after {@link #close()}, until the holds that linger for their
     * minimum have ended and the backend is closed; true when they have.
     */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return engine.awaitClosed(timeout);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + engine.backendName() + " at " + engine.backendAddress() + "]";
    }
}
