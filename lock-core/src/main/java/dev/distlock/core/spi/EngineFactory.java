package dev.distlock.core.spi;

import dev.distlock.core.RegistryOptions;
import java.util.ServiceLoader;

/**
 * Starts the engine that runs a backend. The SPI names only this interface; lock-core's engine
 * provides the one implementation through {@link ServiceLoader}, so the SPI never depends on the
 * engine's classes and a backend reaches the engine only by extending {@link LockRegistrySupport}.
 */
public interface EngineFactory {

    /**
     * Starts the engine for {@code backend}, with read/write locks over {@code readWriteLocks} when
     * that is not null.
     */
    RegistryEngine start(LockBackend<?> backend, ReadWriteLocks readWriteLocks, RegistryOptions options);

    /** The engine of this class path, found once. */
    static EngineFactory installed() {
        return Installed.FACTORY;
    }

    /** Holds the factory, found on first use. */
    final class Installed {

        static final EngineFactory FACTORY = ServiceLoader.load(
                        EngineFactory.class, EngineFactory.class.getClassLoader())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No distlock engine on the class path: "
                        + "META-INF/services/" + EngineFactory.class.getName() + " is missing from lock-core's jar."
                        + " Use an unmodified lock-core jar (a shaded jar must merge service files)."));

        private Installed() {}
    }
}
