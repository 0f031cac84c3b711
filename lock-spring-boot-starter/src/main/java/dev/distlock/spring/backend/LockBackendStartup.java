package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import java.util.function.Supplier;

/** Builds a backend's registry, turning a failure into a start-up failure report that says what to check. */
final class LockBackendStartup {

    private LockBackendStartup() {}

    static <R extends LockRegistry> R build(LockBackendType type, Supplier<R> registry) {
        try {
            return registry.get();
        } catch (LockStartupException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockStartupException(
                    "The " + type + " lock backend could not start: " + e.getMessage(),
                    BackendModules.connectionAction(type),
                    e);
        }
    }
}
