package dev.distlock.core.rw;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.LockEngine;
import dev.distlock.core.spi.LockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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

    /** The read and write holds right now. */
    public synchronized List<HoldInfo> holds() {
        if (engines == null) {
            return List.of();
        }
        List<HoldInfo> holds = new ArrayList<>(engines.write.holds());
        holds.addAll(engines.read.holds());
        return holds;
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
        }
        return engines;
    }

    private record Engines(LockEngine<?> write, LockEngine<?> read) {}
}
