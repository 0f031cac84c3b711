package dev.distlock.core.rw;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.HoldInfo.Kind;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.LockEngine;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The read/write locks of one registry. A registry that offers them keeps one of these and
 * answers {@code readWriteLock(key)} with {@link #lock(String)}, and closes it with itself.
 *
 * <p>The two engines (each with its lease keeper thread) are started on the first {@link
 * #lock(String)}, so a registry that never uses read/write locks pays nothing for them; idle keys
 * cost nothing either way.
 */
public final class ReadWriteLocks implements AutoCloseable {

    private final LockBackend<?> writeSide;
    private final LockBackend<?> readSide;
    private final RegistryOptions options;
    private final List<LockObserver> observers = new CopyOnWriteArrayList<>();
    private Engines engines;
    private boolean closed;

    /**
     * @param writeSide takes, renews and releases write holds of the backend's read/write structure
     * @param readSide the same for read holds; it grants a read to the thread that holds the write
     *     lock (its owner id shares the registry and thread parts, see {@link ReadWriteOwners})
     */
    public ReadWriteLocks(LockBackend<?> writeSide, LockBackend<?> readSide, RegistryOptions options) {
        this.writeSide = Objects.requireNonNull(writeSide, "writeSide");
        this.readSide = Objects.requireNonNull(readSide, "readSide");
        this.options = Objects.requireNonNull(options, "options");
    }

    /** Read/write locks over an in-memory store; registries over one store exclude each other. */
    public static ReadWriteLocks inMemory(MemoryReadWriteStore store, RegistryOptions options) {
        return new ReadWriteLocks(
                new MemoryReadWriteBackend(store, LockMode.WRITE),
                new MemoryReadWriteBackend(store, LockMode.READ),
                options);
    }

    /**
     * The read/write lock of {@code key}: a view, cheap to create.
     *
     * @throws IllegalArgumentException if the key is null, blank or too long for the backend
     * @throws IllegalStateException if the registry is closed
     */
    public FencedReadWriteLock lock(String key) {
        Engines current = engines();
        return new EngineReadWriteLock(current.write.lock(key), current.read.lock(key));
    }

    /** The read and write holds right now, each marked with its side. */
    public synchronized List<HoldInfo> holds() {
        if (engines == null) {
            return List.of();
        }
        List<HoldInfo> holds = new ArrayList<>();
        engines.write.holds().forEach(hold -> holds.add(hold.withKind(Kind.WRITE)));
        engines.read.holds().forEach(hold -> holds.add(hold.withKind(Kind.READ)));
        return holds;
    }

    /**
     * Adds an observer of both sides; the holds it is told of are marked with their side. Taken
     * before the engines start as well: they get every observer added so far.
     */
    public synchronized void addObserver(LockObserver observer) {
        Objects.requireNonNull(observer, "observer");
        observers.add(observer);
        if (engines != null) {
            engines.observe(observer);
        }
    }

    /** Keys held or waited for locally, on either side. */
    public synchronized int trackedKeys() {
        return engines == null ? 0 : engines.write.trackedKeys() + engines.read.trackedKeys();
    }

    /** Ends waits and holds of both sides, then closes the two side backends. */
    @Override
    public void close() {
        Engines toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = engines;
        }
        if (toClose != null) {
            toClose.write.close();
            toClose.read.close();
        } else {
            writeSide.close();
            readSide.close();
        }
    }

    /**
     * Waits at most {@code timeout} for {@link #close()} to end both sides' holds, lingering minimum
     * holds included; true when it has (at once when no engine ever started).
     */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        Engines started;
        synchronized (this) {
            started = engines;
        }
        if (started == null) {
            return true;
        }
        long end = System.nanoTime() + timeout.toNanos();
        return started.write.awaitClosed(timeout)
                && started.read.awaitClosed(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
    }

    private synchronized Engines engines() {
        if (closed) {
            throw new IllegalStateException("The " + writeSide.name() + " lock registry is closed");
        }
        if (engines == null) {
            String registryId = LockEngine.newRegistryId();
            // One permit for writers, as for a mutex; readers of one registry share the key, each
            // with its own hold on the server, so the read gate never queues them.
            engines = new Engines(
                    new LockEngine<>(writeSide, options, 1, registryId),
                    new LockEngine<>(readSide, options, Integer.MAX_VALUE, registryId));
            observers.forEach(engines::observe);
        }
        return engines;
    }

    private record Engines(LockEngine<?> write, LockEngine<?> read) {

        void observe(LockObserver observer) {
            write.addObserver(new SideObserver(observer, Kind.WRITE));
            read.addObserver(new SideObserver(observer, Kind.READ));
        }
    }

    /** Passes an engine's events on with each hold marked as the engine's side. */
    private record SideObserver(LockObserver delegate, Kind kind) implements LockObserver {

        @Override
        public void acquisitionEnded(String backend, String key, Outcome outcome, Duration waited) {
            delegate.acquisitionEnded(backend, key, outcome, waited);
        }

        @Override
        public void holdStarted(HoldInfo hold) {
            delegate.holdStarted(hold.withKind(kind));
        }

        @Override
        public void leaseLost(HoldInfo hold, String reason) {
            delegate.leaseLost(hold.withKind(kind), reason);
        }

        @Override
        public void holdEnded(HoldInfo hold) {
            delegate.holdEnded(hold.withKind(kind));
        }

        @Override
        public void backendError(String backend, String key, RuntimeException error) {
            delegate.backendError(backend, key, error);
        }
    }
}
