package dev.distlock.core.engine;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.HoldInfo.Kind;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.ReadWriteLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The read/write locks of one registry, built of two lock engines over the two sides a backend supplies ({@link
 * ReadWriteLocks}). The registry answers {@code readWriteLock(key)} with {@link #lock(String)} and closes this with
 * itself. The engines start on the first {@link #lock(String)}, so a registry without read/write locks pays nothing.
 */
final class ReadWriteEngines implements AutoCloseable {

    private final LockBackend<?> writeSide;
    private final LockBackend<?> readSide;
    private final RegistryOptions options;
    private final List<LockObserver> observers = new CopyOnWriteArrayList<>();
    private SidePair engines;
    private boolean closed;

    ReadWriteEngines(ReadWriteLocks sides) {
        this.writeSide = sides.writeSide();
        this.readSide = sides.readSide();
        this.options = sides.options();
    }

    /**
     * The read/write lock of {@code key}, a view that is cheap to create.
     *
     * @throws IllegalArgumentException if the key is null, blank or too long for the backend
     * @throws IllegalStateException if the registry is closed
     */
    FencedReadWriteLock lock(String key) {
        SidePair current = engines();
        return new EngineReadWriteLock(current.write.lock(key), current.read.lock(key));
    }

    /** The read and write holds right now, each marked with its side. */
    synchronized List<HoldInfo> holds() {
        if (engines == null) {
            return List.of();
        }
        List<HoldInfo> holds = new ArrayList<>();
        engines.write.holds().forEach(hold -> holds.add(hold.withKind(Kind.WRITE)));
        engines.read.holds().forEach(hold -> holds.add(hold.withKind(Kind.READ)));
        return holds;
    }

    /**
     * Adds an observer of both sides, which marks each hold with its side. The engines get the observers added
     * before they started.
     */
    synchronized void addObserver(LockObserver observer) {
        Objects.requireNonNull(observer, "observer");
        observers.add(observer);
        if (engines != null) {
            engines.observe(observer);
        }
    }

    /** Keys held or waited for locally, on either side. */
    synchronized int trackedKeys() {
        return engines == null ? 0 : engines.write.trackedKeys() + engines.read.trackedKeys();
    }

    /** Ends waits and holds of both sides, then closes the two side backends. */
    @Override
    public void close() {
        SidePair toClose;
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
     * Waits at most {@code timeout} for {@link #close()} to end both sides' holds. True when it has, and at once when
     * no engine ever started.
     */
    boolean awaitClosed(Duration timeout) throws InterruptedException {
        SidePair started;
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

    private synchronized SidePair engines() {
        if (closed) {
            throw new IllegalStateException("The " + writeSide.name() + " lock registry is closed");
        }
        if (engines == null) {
            String registryId = LockEngine.newRegistryId();
            // One permit for writers. Readers each have their own hold, so the read gate never queues them.
            engines = new SidePair(
                    new LockEngine<>(writeSide, options, 1, registryId),
                    new LockEngine<>(readSide, options, Integer.MAX_VALUE, registryId));
            observers.forEach(engines::observe);
        }
        return engines;
    }

    private record SidePair(LockEngine<?> write, LockEngine<?> read) {

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
