package dev.distlock.core.spi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What {@link LockRegistrySupport} asks of the engine that runs a backend: the engine's face as the
 * SPI sees it. Backends never implement or call it; they extend {@link LockRegistrySupport}.
 */
public interface RegistryEngine extends AutoCloseable {

    /** The lock of {@code key}. */
    FencedLock lock(String key);

    /** The read/write lock of {@code key}, or null when the backend offers none. */
    FencedReadWriteLock readWriteLock(String key);

    /** The backend's name. */
    String backendName();

    /** The backend's address, for messages. */
    String backendAddress();

    /** The registry's settings. */
    RegistryOptions options();

    /** See {@link dev.distlock.core.LockRegistry#verify(Duration)}. */
    void verify(Duration timeout);

    /** See {@link dev.distlock.core.LockRegistry#holderOf(String)}. */
    Optional<LockHolder> holderOf(String key);

    /** See {@link dev.distlock.core.LockRegistry#holderOfLater(String)}. */
    java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key);

    /** See {@link dev.distlock.core.LockRegistry#forceRelease(String)}. */
    boolean forceRelease(String key);

    /** The plain and read/write holds right now. */
    List<HoldInfo> holds();

    /** Adds an observer of plain and read/write locks. */
    void addObserver(LockObserver observer);

    /** Keys of plain locks tracked locally (held or waited for). */
    int trackedKeys();

    /** Ends waits and holds, then closes the backend. */
    @Override
    void close();

    /** Waits at most {@code timeout}, after {@link #close()}, for every hold to end; true when they have. */
    boolean awaitClosed(Duration timeout) throws InterruptedException;
}
