package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a {@link LockBackend}'s atomic operations into reentrant, leased, fenced locks: the
 * state one registry shares across its keys. Acquisition lives in {@link Acquirer}, lease
 * keeping in {@link Renewals}, the life of one hold in {@link Hold}; this class owns what
 * spans them: the per-key local states, the live holds, observers, and closing.
 *
 * <p>The semantics kept here are the contract in {@code docs/contract.md}.
 */
public final class LockEngine<L extends BackendLease> implements AutoCloseable {

    static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    final LockBackend<L> backend;
    final RegistryOptions options;
    final String registryId;
    final int gatePermits;
    final Waiters waiters = new Waiters();

    private final ConcurrentHashMap<String, KeyState<L>> keys = new ConcurrentHashMap<>();
    private final Set<Hold<L>> holds = ConcurrentHashMap.newKeySet();
    private final List<LockObserver> observers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicLong holdSequence = new AtomicLong();
    private final LeaseKeeper keeper;
    private final Renewals<L> renewals;
    private final Acquirer<L> acquirer = new Acquirer<>(this);
    private final AsyncAcquisitions async;
    private final HolderDescription holderDescription;
    private volatile boolean closed;

    public LockEngine(LockBackend<L> backend, RegistryOptions options) {
        this(backend, options, 1, newRegistryId());
    }

    /**
     * An engine whose local gate lets {@code gatePermits} holds of one key in at once (1 for a
     * mutex; more for a shared mode such as read locks), with owners named after {@code registryId}
     * (engines that must recognise each other's owners, like the two sides of a read/write lock,
     * share one).
     */
    public LockEngine(LockBackend<L> backend, RegistryOptions options, int gatePermits, String registryId) {
        if (gatePermits < 1) {
            throw new IllegalArgumentException("gatePermits must be at least 1, was " + gatePermits);
        }
        this.backend = Objects.requireNonNull(backend, "backend");
        this.options = Objects.requireNonNull(options, "options");
        this.gatePermits = gatePermits;
        this.registryId = Objects.requireNonNull(registryId, "registryId");
        this.keeper = new LeaseKeeper(backend.name());
        this.renewals = new Renewals<>(this, keeper);
        this.async = new AsyncAcquisitions(backend.name());
        this.holderDescription = new HolderDescription(options.applicationName());
        backend.setLeaseListener(this::leaseLostByBackend);
    }

    /** The lock of {@code key}: a view, cheap to create; idle keys cost nothing. */
    public FencedLock lock(String key) {
        checkOpen();
        return new EngineLock<>(this, key, fullKey(key));
    }

    public String backendName() {
        return backend.name();
    }

    /** Where the backend's server is, for messages. */
    public String backendAddress() {
        return backend.address();
    }

    public RegistryOptions options() {
        return options;
    }

    /** Keys tracked locally (held or waited for). */
    public int trackedKeys() {
        return keys.size();
    }

    public List<HoldInfo> holds() {
        return holds.stream().map(hold -> hold.info(backend.name())).toList();
    }

    public void addObserver(LockObserver observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    public void verify(Duration timeout) {
        checkOpen();
        backend.verify(timeout);
    }

    public Optional<LockHolder> holderOf(String key) {
        checkOpen();
        return backend.holderOf(fullKey(key));
    }

    public boolean forceRelease(String key) {
        checkOpen();
        String full = fullKey(key);
        Optional<LockHolder> evicted = backend.holderOf(full);
        boolean removed = backend.forceRelease(full);
        if (removed) {
            log.warn(
                    "Lock '{}' on {} was force-released; evicted holder: {}. Its writes carrying fencing token {} or"
                            + " lower can be refused.",
                    key,
                    describe(),
                    evicted.map(LockHolder::holder).orElse("unknown"),
                    evicted.map(holder -> holder.token().toString()).orElse("unknown"));
            for (Hold<L> hold : holds) {
                if (hold.keyState.fullKey.equals(full)) {
                    hold.lose("it was force-released by an operator");
                }
            }
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
        return backend.name() + " (" + backend.address() + ")";
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("The " + backend.name() + " lock registry is closed");
        }
    }

    IllegalStateException closedWhileWaiting(String key) {
        return new IllegalStateException("The " + backend.name() + " lock registry was closed while this thread"
                + " waited for lock '" + key + "'");
    }

    Renewals<L> renewals() {
        return renewals;
    }

    Acquirer<L> acquirer() {
        return acquirer;
    }

    java.util.concurrent.CompletableFuture<Optional<dev.distlock.core.LockHandle>> acquireAsync(
            String key, String fullKey, Duration waitTime, Duration leaseTime, boolean renewed) {
        checkOpen();
        KeyCheck.duration("waitTime", waitTime, key, backend.name(), true);
        KeyCheck.duration("leaseTime", leaseTime, key, backend.name(), false);
        return async.acquire(acquirer, key, fullKey, waitTime, leaseTime, renewed);
    }

    long nextHoldSequence() {
        return holdSequence.incrementAndGet();
    }

    String holderDescription(Thread owner) {
        return holderDescription.of(owner);
    }

    KeyState<L> existing(String fullKey) {
        return keys.get(fullKey);
    }

    /** Counts a user of the key's local state; the state is dropped when its last user leaves. */
    KeyState<L> retain(String fullKey) {
        return keys.compute(fullKey, (k, existing) -> {
            KeyState<L> state = existing == null ? new KeyState<>(k, gatePermits) : existing;
            state.references++;
            return state;
        });
    }

    void unretain(KeyState<L> state) {
        keys.computeIfPresent(state.fullKey, (k, existing) -> {
            if (existing != state) {
                return existing;
            }
            return --existing.references == 0 ? null : existing;
        });
    }

    Hold<L> newHold(KeyState<L> state, String key, L lease, Duration leaseTime, boolean renewed, Thread owner) {
        boolean confirmed = renewed && backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
        Duration period = confirmed ? backend.sessionLeaseTime() : leaseTime;
        return new Hold<>(
                this, state, key, lease, leaseTime, renewed, period, owner == null ? "handle" : owner.getName());
    }

    void started(Hold<L> hold) {
        holds.add(hold);
        renewals.start(hold);
        notifyObservers(observer -> observer.holdStarted(hold.info(backend.name())));
    }

    void lost(Hold<L> hold, String reason) {
        renewals.stop(hold);
        log.warn(
                "Lock '{}' on {} lost its lease: {}. Its holder must stop writing; writes carrying fencing token {}"
                        + " can be refused.",
                hold.key,
                describe(),
                reason,
                hold.token());
        notifyObservers(observer -> observer.leaseLost(hold.info(backend.name()), reason));
    }

    void ended(Hold<L> hold) {
        holds.remove(hold);
        renewals.stop(hold);
        notifyObservers(observer -> observer.holdEnded(hold.info(backend.name())));
    }

    void acquisitionEnded(String key, LockObserver.Outcome outcome, Duration waited) {
        if (!observers.isEmpty()) {
            notifyObservers(observer -> observer.acquisitionEnded(backend.name(), key, outcome, waited));
        }
    }

    void backendError(String fullKey, RuntimeException error) {
        notifyObservers(observer -> observer.backendError(backend.name(), fullKey, error));
    }

    void runCallback(Hold<L> hold, Runnable callback) {
        keeper.run(() -> runCallbackNow(hold, callback));
    }

    void runCallbackNow(Hold<L> hold, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("A lease-loss callback of lock '{}' on {} failed", hold.key, describe(), e);
        }
    }

    /**
     * The one release policy. A live hold's release that fails is reported to the caller (after
     * the local state was cleared); a lost hold's release never throws; neither does one at close.
     * The caller's interrupt flag is cleared for the call and set again after it.
     */
    void releaseOnServer(Hold<L> hold, boolean wasLost, Hold.Ending ending) {
        if (wasLost || ending == Hold.Ending.CLOSED || ending == Hold.Ending.MINIMUM_HOLD_OVER) {
            boolean freed = releaseQuietly(hold);
            if (wasLost && ending == Hold.Ending.RELEASED) {
                log.warn(
                        freed
                                ? "Released lock '{}' on {} after its lease had been declared lost; the server still had it"
                                        + " (a late renewal kept it) and it is free now."
                                : "Released lock '{}' on {} after its lease was lost; the server no longer had it.",
                        hold.key,
                        describe());
            }
            return;
        }
        boolean freed;
        try {
            freed = uninterrupted(hold);
        } catch (RuntimeException e) {
            backendError(hold.keyState.fullKey, e);
            throw e;
        }
        if (!freed) {
            log.warn(
                    "Lock '{}' on {} had already expired when it was released; another owner may have held it"
                            + " meanwhile. Use a longer lease or let the watchdog renew it.",
                    hold.key,
                    describe());
        }
    }

    boolean releaseQuietly(Hold<L> hold) {
        try {
            return uninterrupted(hold);
        } catch (RuntimeException e) {
            backendError(hold.keyState.fullKey, e);
            log.warn(
                    "Could not release lock '{}' on {}; it frees itself when its lease ends: {}",
                    hold.key,
                    describe(),
                    e.getMessage());
            return false;
        }
    }

    private boolean uninterrupted(Hold<L> hold) {
        return uninterrupted(() -> backend.release(hold.lease));
    }

    /** Runs a backend call with the caller's interrupt flag cleared, and sets it again afterwards. */
    static boolean uninterrupted(java.util.function.BooleanSupplier call) {
        boolean interrupted = Thread.interrupted();
        try {
            return call.getAsBoolean();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void leaseLostByBackend(BackendLease lease, String reason) {
        for (Hold<L> hold : holds) {
            if (hold.lease.equals(lease)) {
                hold.lose(reason);
            }
        }
    }

    private void notifyObservers(java.util.function.Consumer<LockObserver> event) {
        for (LockObserver observer : observers) {
            try {
                event.accept(observer);
            } catch (RuntimeException e) {
                log.warn("Lock observer {} failed", observer, e);
            }
        }
    }

    /** Ends every wait and every hold of this registry, then closes the backend. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiters.endAll();
        waiters.awaitEmpty(2_000);
        for (Hold<L> hold : holds) {
            hold.end(Hold.Ending.CLOSED);
        }
        keys.clear();
        async.close();
        keeper.close();
        backend.close();
    }

    String fullKey(String key) {
        return KeyCheck.fullKey(key, options.keyPrefix(), backend.name(), backend.maxKeyLength());
    }

    static void checkDuration(String name, Duration value, String key, String backend, boolean zeroAllowed) {
        KeyCheck.duration(name, value, key, backend, zeroAllowed);
    }

    static String format(Duration duration) {
        return KeyCheck.format(duration);
    }

    @Override
    public String toString() {
        return "LockEngine[" + describe() + "]";
    }
}
