package dev.distlock.core.spi;

import dev.distlock.core.RegistryOptions;
import java.util.Objects;

/**
 * The read/write locks a backend offers: the two sides of its server-side read/write structure,
 * each a {@link LockBackend}. A registry that offers read/write locks passes one of these to
 * {@link LockRegistrySupport}, which serves {@code readWriteLock(key)} from it and closes both sides
 * with itself. The engine adds the rest: reentrancy, the local gates (one writer, readers share),
 * lease keeping, and the write side that refuses an upgrade from a read hold.
 *
 * <p>Both sides name their owners after one registry id, so a backend recognises a read request
 * from the thread that holds the write lock (downgrade, see {@link ReadWriteOwners}). The semantics,
 * and what a resource compares, are in {@code docs/read-write-locks.md}.
 */
public final class ReadWriteLocks {

    private final LockBackend<?> writeSide;
    private final LockBackend<?> readSide;
    private final RegistryOptions options;

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

    /** The side that takes write holds. */
    public LockBackend<?> writeSide() {
        return writeSide;
    }

    /** The side that takes read holds. */
    public LockBackend<?> readSide() {
        return readSide;
    }

    /** The settings both sides run with. */
    public RegistryOptions options() {
        return options;
    }
}
