package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a {@link LockBackend}'s atomic operations into reentrant, leased, fenced locks for one registry. It builds
 * the pipeline of stages ({@code docs/architecture.md}) and owns what spans them. That is the per-key local states,
 * the live holds, the observers and closing.
 */
final class LockEngine<L extends BackendLease> implements RegistryEngine {

    static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    final LockBackend<L> backend;
    final RegistryOptions options;
    final String registryId;
    final Waiters waiters = new Waiters();

    final KeyStates<L> keys;
    final EngineEvents<L> events;
    final Releases<L> releases;
    final LeaseEnds<L> leaseEnds;
    final Renewals<L> renewals;
    final Acquirer<L> acquirer = new Acquirer<>(this);
    private final Set<Hold<L>> holds = ConcurrentHashMap.newKeySet();
    private final Observers observers = new Observers();
    private final LeaseKeeper keeper;
    private final AsyncAcquisitions async;
    /** The registry's read/write locks. Null when its backend has none, or when this engine is one of their sides. */
    private final ReadWriteEngines readWrite;

    private final HolderDescription holderDescription;
    private volatile boolean closed;
    private final Closing<L> closing;

    LockEngine(LockBackend<L> backend, RegistryOptions options) {
        this(backend, options, 1, newRegistryId());
    }

    /** The engine of one registry, with read/write locks over {@code readWriteLocks} when that is not null. */
    LockEngine(LockBackend<L> backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        this(
                backend,
                options,
                1,
                newRegistryId(),
                readWriteLocks == null ? null : new ReadWriteEngines(readWriteLocks));
    }

    /**
     * An engine whose local gate lets {@code gatePermits} holds of one key in at once, 1 for a mutex and more for
     * read locks. Engines that must recognise each other's owners, like the two sides of a read/write lock, share one
     * {@code registryId}.
     */
    LockEngine(LockBackend<L> backend, RegistryOptions options, int gatePermits, String registryId) {
        this(backend, options, gatePermits, registryId, null);
    }

    private LockEngine(
            LockBackend<L> backend,
            RegistryOptions options,
            int gatePermits,
            String registryId,
            ReadWriteEngines readWrite) {
        if (gatePermits < 1) {
            throw new IllegalArgumentException("gatePermits must be at least 1, was " + gatePermits);
        }
        this.backend = Objects.requireNonNull(backend, "backend");
        this.options = Objects.requireNonNull(options, "options");
        this.keys = new KeyStates<>(gatePermits);
        this.registryId = Objects.requireNonNull(registryId, "registryId");
        this.readWrite = readWrite;
        this.keeper = new LeaseKeeper(
                backend.name(), () -> holds.stream().map(hold -> hold.keeping).iterator());
        this.events = new EngineEvents<>(backend, holds, observers, keeper);
        this.releases = new Releases<>(backend, keeper, events);
        this.leaseEnds =
                new LeaseEnds<>(keeper, events, releases, backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION);
        this.renewals = new Renewals<>(backend, keeper, leaseEnds, events);
        this.async = new AsyncAcquisitions(backend.name());
        this.holderDescription = new HolderDescription(options.applicationName());
        this.closing = new Closing<>(backend, releases);
        backend.setLeaseListener((lease, reason) -> loseWhere(hold -> hold.lease.equals(lease), reason));
    }

    /** The lock of {@code key}, a view that is cheap to create. Idle keys cost nothing. */
    @Override
    public FencedLock lock(String key) {
        checkOpen();
        return new EngineLock<>(this, key, fullKey(key));
    }

    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        return readWrite == null ? null : readWrite.lock(key);
    }

    @Override
    public String backendName() {
        return backend.name();
    }

    /** Where the backend's server is, for messages. */
    @Override
    public String backendAddress() {
        return backend.address();
    }

    @Override
    public RegistryOptions options() {
        return options;
    }

    /** Keys tracked locally (held or waited for). */
    @Override
    public int trackedKeys() {
        return keys.size();
    }

    @Override
    public List<HoldInfo> holds() {
        List<HoldInfo> infos = new ArrayList<>();
        holds.forEach(hold -> infos.add(hold.info(backend.name())));
        if (readWrite != null) {
            infos.addAll(readWrite.holds());
        }
        return infos;
    }

    @Override
    public void addObserver(LockObserver observer) {
        observers.add(observer);
        if (readWrite != null) {
            readWrite.addObserver(observer);
        }
    }

    @Override
    public void verify(Duration timeout) {
        checkOpen();
        backend.verify(timeout);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        checkOpen();
        return backend.holderOf(fullKey(key));
    }

    @Override
    public java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key) {
        checkOpen();
        return backend.holderOfLater(fullKey(key));
    }

    @Override
    public boolean forceRelease(String key) {
        checkOpen();
        String full = fullKey(key);
        Optional<LockHolder> evicted = backend.holderOf(full);
        boolean removed = backend.forceRelease(full);
        if (removed) {
            events.forceReleased(key, evicted);
            loseWhere(hold -> hold.keyState.fullKey.equals(full), "it was force-released by an operator");
        }
        return removed;
    }

    /** A new random registry id (128 bits), unique across JVMs and hosts. */
    public static String newRegistryId() {
        return OwnerIds.newRegistryId();
    }

    /** The id that owner ids of this engine's holds start with. */
    public String registryId() {
        return registryId;
    }

    String describe() {
        return events.describe();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("The " + backend.name() + " lock registry is closed");
        }
    }

    java.util.concurrent.CompletableFuture<Optional<dev.distlock.core.LockHandle>> acquireAsync(
            Acquisition acquisition) {
        checkOpen();
        KeyCheck.duration("waitTime", acquisition.waitTime(), acquisition.key(), backend.name(), true);
        KeyCheck.duration("leaseTime", acquisition.leaseTime(), acquisition.key(), backend.name(), false);
        return async.acquire(acquirer, acquisition);
    }

    String holderDescription(Thread owner, String note) {
        return holderDescription.of(owner, note);
    }

    void started(Hold<L> hold) {
        events.started(hold);
        renewals.start(hold);
    }

    private void loseWhere(java.util.function.Predicate<Hold<L>> which, String reason) {
        for (Hold<L> hold : holds) {
            if (which.test(hold)) {
                leaseEnds.lose(hold, reason);
            }
        }
    }

    /**
     * Ends every wait and every hold of this registry, then closes the backend. Holds released before their minimum
     * ended stay on the server until it ends, as after a crash. A server lease then ends by itself. On a session
     * backend a background thread removes them and closes the backend after the last one.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (readWrite != null) {
            readWrite.close();
        }
        waiters.endAll();
        waiters.awaitEmpty(2_000);
        List<Hold<L>> lingering = new ArrayList<>();
        for (Hold<L> hold : holds) {
            // A lease that ran out is lost now, so its release runs in the background instead of waiting here.
            leaseEnds.loseIfExpired(hold);
            if (releases.atClose(hold)) {
                lingering.add(hold);
            }
        }
        keys.clear();
        async.close();
        keeper.close();
        releases.close();
        closing.start(lingering);
    }

    /** Waits at most {@code timeout} for {@link #close()} to end every hold and close the backend. True when it has. */
    @Override
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        boolean closedHere = closing.await(timeout);
        if (readWrite == null) {
            return closedHere;
        }
        return readWrite.awaitClosed(Duration.ofNanos(Math.max(0, end - System.nanoTime()))) && closedHere;
    }

    String fullKey(String key) {
        return KeyCheck.fullKey(key, options.keyPrefix(), backend.name(), backend.maxKeyLength());
    }

    @Override
    public String toString() {
        return "LockEngine[" + describe() + "]";
    }
}
