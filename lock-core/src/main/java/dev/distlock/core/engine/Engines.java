package dev.distlock.core.engine;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.EngineFactory;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.RegistryEngine;

/**
 * Internal: the engine's one public entry, found by {@link EngineFactory#installed()} through
 * {@code META-INF/services}. Not an API and not for backends; it may change in any release.
 */
public final class Engines implements EngineFactory {

    /** For {@link java.util.ServiceLoader}. */
    public Engines() {}

    @Override
    public RegistryEngine start(LockBackend<?> backend, ReadWriteLocks readWriteLocks, RegistryOptions options) {
        return new LockEngine<>(backend, readWriteLocks, options);
    }
}
