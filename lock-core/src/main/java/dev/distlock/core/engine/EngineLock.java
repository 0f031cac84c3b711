package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.Interrupts;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The {@link FencedLock} of one key, owned by the calling thread. A thin view over the engine. */
final class EngineLock<L extends BackendLease> implements FencedLock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final LockEngine<L> engine;
    private final String key;
    private final String fullKey;
    /** Recorded with each new hold beside the holder description, or null for none. */
    private final String note;

    EngineLock(LockEngine<L> engine, String key, String fullKey) {
        this(engine, key, fullKey, null);
    }

    private EngineLock(LockEngine<L> engine, String key, String fullKey, String note) {
        this.engine = engine;
        this.key = key;
        this.fullKey = fullKey;
        this.note = note;
    }

    @Override
    public FencedLock withNote(String note) {
        return new EngineLock<>(engine, key, fullKey, HolderDescription.checkNote(note, key, engine.backendName()));
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public String backendName() {
        return engine.backendName();
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        while (true) {
            Optional<LockHandle> handle = tryAcquire(FOREVER);
            if (handle.isPresent()) {
                return handle.get();
            }
        }
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
        return acquire(renewed(waitTime));
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return acquire(fixed(waitTime, leaseTime));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime) {
        return engine.acquireAsync(renewed(waitTime).ownedByHandle());
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> acquireAsync(Duration waitTime, Duration leaseTime) {
        return engine.acquireAsync(fixed(waitTime, leaseTime).ownedByHandle());
    }

    /** A handle-owned take on this thread, with the same steps as {@link #acquireAsync}. */
    @Override
    public Optional<LockHandle> tryAcquireDetached(Duration waitTime) throws InterruptedException {
        return acquire(renewed(waitTime).ownedByHandle());
    }

    @Override
    public Optional<LockHandle> tryAcquireDetached(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return acquire(fixed(waitTime, leaseTime).ownedByHandle());
    }

    @Override
    public Optional<LockHandle> tryAcquireUnlessHeld(String guardKey) throws InterruptedException {
        return acquireUnlessHeld(guardKey, renewed(Duration.ZERO));
    }

    @Override
    public Optional<LockHandle> tryAcquireUnlessHeld(String guardKey, Duration leaseTime) throws InterruptedException {
        if (leaseTime == null) {
            return tryAcquireUnlessHeld(guardKey);
        }
        return acquireUnlessHeld(guardKey, fixed(Duration.ZERO, leaseTime));
    }

    private Optional<LockHandle> acquireUnlessHeld(String guardKey, Acquisition acquisition)
            throws InterruptedException {
        String guardFullKey = engine.fullKey(guardKey);
        if (guardFullKey.equals(fullKey) || !engine.backend.guardsTakes(fullKey, guardFullKey)) {
            throw new UnsupportedOperationException("Lock '" + key + "' on " + engine.describe()
                    + " cannot be taken on the condition that '" + guardKey + "' is free in one step on the server;"
                    + " read the other key's holder beside a plain take instead");
        }
        return acquire(acquisition.ownedByHandle().unlessHeld(guardFullKey));
    }

    private Acquisition renewed(Duration waitTime) {
        return Acquisition.renewed(key, fullKey, waitTime, engine.options.leaseTime())
                .noted(note);
    }

    private Acquisition fixed(Duration waitTime, Duration leaseTime) {
        return Acquisition.fixed(key, fullKey, waitTime, leaseTime).noted(note);
    }

    private Optional<LockHandle> acquire(Acquisition acquisition) throws InterruptedException {
        return engine.acquirer.acquire(acquisition).map(EngineHandle::new);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Ownership<L> own = current();
        return own != null && own.hold().isValid();
    }

    @Override
    public int holdCount() {
        Ownership<L> own = current();
        return own == null ? 0 : own.count();
    }

    @Override
    public Optional<FencingToken> currentToken() {
        return Optional.ofNullable(current()).map(own -> own.hold().token());
    }

    private Ownership<L> current() {
        KeyState<L> state = engine.keys.existing(fullKey);
        return state == null ? null : state.ownedBy(Thread.currentThread());
    }

    @Override
    public void lock() {
        Interrupts.deferred(this::acquire);
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
        // As Lock specifies, a time of zero or less means "don't wait".
        return tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time)))).isPresent();
    }

    @Override
    public void unlock() {
        Ownership<L> own = current();
        if (own == null) {
            if (engine.isClosed()) {
                LockEngine.log.debug("unlock() of '{}' after its registry was closed: nothing to release", key);
                return;
            }
            throw new IllegalMonitorStateException("Lock '" + key + "' on " + engine.describe()
                    + " is not held by thread " + Thread.currentThread().getName());
        }
        EngineHandle.release(engine, own);
    }

    @Override
    public String toString() {
        return "FencedLock[" + key + " on " + engine.describe() + "]";
    }
}
