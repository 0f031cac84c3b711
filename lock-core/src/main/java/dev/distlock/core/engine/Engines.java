package dev.distlock.core.engine;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryEngine;

/**
 * Internal: the engine's one public entry, used by {@link dev.distlock.core.spi.LockRegistrySupport}
 * alone. Not an API and not for backends; it may change in any release.
 */
public final class Engines {

    private Engines() {}

    /**
     * Starts the engine for {@code backend}, with read/write locks over {@code readWriteLocks} when
     * that is not null.
     */
    public static RegistryEngine start(LockBackend<?> backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        return new EngineRegistry(
                new LockEngine<>(backend, options),
                readWriteLocks == null ? null : new ReadWriteEngines(readWriteLocks));
    }
}
