package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a {@link LockBackend}'s atomic operations into reentrant, leased, fenced locks: the
 * state one registry shares across its keys. It builds the pipeline and owns what spans it: the
 * per-key local states, the live holds, observers, and closing. The pipeline: {@link Acquirer}
 * takes holds; {@link Renewals} keeps their leases on the {@link LeaseKeeper}; {@link LeaseEnds}
 * decides when a lease ended and is the one way to lose a hold; {@link Releases} is the release
 * policy and the one way to end a hold; {@link Hold} is one hold's state. The stages hear nothing
 * from here but what {@link HoldEvents} passes on.
 *
 * <p>The semantics kept here are the contract in {@code docs/contract.md}.
 */
final class LockEngine<L extends BackendLease> implements AutoCloseable {

    static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    /** How long a closed engine lets its last background releases run before it closes the backend under them. */
    private static final Duration LAST_RELEASES_BOUND = Duration.ofSeconds(30);

    final LockBackend<L> backend;
    final RegistryOptions options;
    final String registryId;
    final Waiters waiters = new Waiters();

    private final KeyStates<L> keys;
    private final Set<Hold<L>> holds = ConcurrentHashMap.newKeySet();
    private final Observers observers = new Observers();
    private final LeaseKeeper keeper;
    private final EngineEvents<L> events;
    private final Releases<L> releases;
    private final LeaseEnds<L> leaseEnds;
    private final Renewals<L> renewals;
    private final Acquirer<L> acquirer = new Acquirer<>(this);
    private final AsyncAcquisitions async;
    private final HolderDescription holderDescription;
    private volatile boolean closed;
    /** Opens when {@link #close()} has ended every hold, lingering ones included, and closed the backend. */
    private final CountDownLatch closedFully = new CountDownLatch(1);

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
        this.keys = new KeyStates<>(gatePermits);
        this.registryId = Objects.requireNonNull(registryId, "registryId");
        // The pipeline: Acquirer takes holds, Renewals keeps their leases on the LeaseKeeper, LeaseEnds
        // decides when a lease ended, Releases ends holds; each is handed what it needs.
        this.keeper = new LeaseKeeper(
                backend.name(), () -> holds.stream().map(hold -> hold.keeping).iterator());
        this.events = new EngineEvents<>(backend, holds, observers, keeper);
        this.releases = new Releases<>(backend, keeper, events);
        this.leaseEnds =
                new LeaseEnds<>(keeper, events, releases, backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION);
        this.renewals = new Renewals<>(backend, keeper, leaseEnds, events);
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
        observers.add(observer);
    }

    public void verify(Duration timeout) {
        checkOpen();
        backend.verify(timeout);
    }

    public Optional<LockHolder> holderOf(String key) {
        checkOpen();
        return backend.holderOf(fullKey(key));
    }

    public java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key) {
        checkOpen();
        return backend.holderOfLater(fullKey(key));
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
                    leaseEnds.lose(hold, "it was force-released by an operator");
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

    Releases<L> releases() {
        return releases;
    }

    Renewals<L> renewals() {
        return renewals;
    }

    LeaseEnds<L> leaseEnds() {
        return leaseEnds;
    }

    EngineEvents<L> events() {
        return events;
    }

    Acquirer<L> acquirer() {
        return acquirer;
    }

    java.util.concurrent.CompletableFuture<Optional<dev.distlock.core.LockHandle>> acquireAsync(
            String key, String fullKey, Duration waitTime, Duration leaseTime, boolean renewed, String note) {
        checkOpen();
        KeyCheck.duration("waitTime", waitTime, key, backend.name(), true);
        KeyCheck.duration("leaseTime", leaseTime, key, backend.name(), false);
        return async.acquire(acquirer, key, fullKey, waitTime, leaseTime, renewed, note);
    }

    String holderDescription(Thread owner, String note) {
        return holderDescription.of(owner, note);
    }

    KeyStates<L> keys() {
        return keys;
    }

    void started(Hold<L> hold) {
        events.started(hold);
        renewals.start(hold);
    }

    private void leaseLostByBackend(BackendLease lease, String reason) {
        for (Hold<L> hold : holds) {
            if (hold.lease.equals(lease)) {
                leaseEnds.lose(hold, reason);
            }
        }
    }

    /**
     * Ends every wait and every hold of this registry, then closes the backend. Holds that their
     * owners released before their minimum ended stay on the server until it ends, as after a
     * crash: on a server-lease backend their lease ends then by itself; on a session backend a
     * background thread removes them then, and closes the backend after the last one.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiters.endAll();
        waiters.awaitEmpty(2_000);
        List<Hold<L>> lingering = new ArrayList<>();
        for (Hold<L> hold : holds) {
            // A lease that ran out is lost, whether or not the lease keeper said so yet: its
            // release then runs in the background instead of waiting on the server here.
            leaseEnds.loseIfExpired(hold);
            if (releases.atClose(hold)) {
                lingering.add(hold);
            }
        }
        keys.clear();
        async.close();
        keeper.close();
        releases.close();
        if (lingering.isEmpty() && !releases.busy()) {
            closeBackend();
            return;
        }
        Thread closing = new Thread(() -> closeLater(lingering), "distlock-" + backend.name() + "-closing");
        closing.setDaemon(true);
        closing.start();
    }

    /** After {@link #close()}: ends {@code lingering} holds when their minimums end, then closes the backend. */
    private void closeLater(List<Hold<L>> lingering) {
        releases.endWhenMinimumOver(lingering);
        releases.awaitBackground(LAST_RELEASES_BOUND);
        closeBackend();
    }

    private void closeBackend() {
        try {
            backend.close();
        } finally {
            closedFully.countDown();
        }
    }

    /**
     * Waits at most {@code timeout} for {@link #close()} to end every hold, lingering minimum holds
     * included, and close the backend; true when it has.
     */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return closedFully.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    String fullKey(String key) {
        return KeyCheck.fullKey(key, options.keyPrefix(), backend.name(), backend.maxKeyLength());
    }

    @Override
    public String toString() {
        return "LockEngine[" + describe() + "]";
    }
}
