package dev.distlock.core.memory;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LockRegistrySupport;
import dev.distlock.core.spi.RegistryBuilder;
import java.util.Objects;

/**
 * Locks within one JVM, with the same semantics as the distributed backends: leases,
 * watchdog, fencing tokens. For single-instance applications and for users' unit tests;
 * registries built over one {@link MemoryLockStore} behave like separate JVMs sharing a server.
 */
public final class MemoryLockRegistry extends LockRegistrySupport {

    private final MemoryLockStore store;

    private MemoryLockRegistry(MemoryLockStore store, RegistryOptions options) {
        super(new MemoryLockBackend(store), store.readWriteLocks(options), options);
        this.store = store;
    }

    /** A registry with its own store and default options. */
    public MemoryLockRegistry() {
        this(new MemoryLockStore(), RegistryOptions.defaults());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The store behind this registry. */
    public MemoryLockStore store() {
        return store;
    }

    /** Builds a {@link MemoryLockRegistry}. */
    public static final class Builder extends RegistryBuilder<Builder, MemoryLockRegistry> {

        private MemoryLockStore store;

        private Builder() {}

        /** Share a store with other registries; by default each registry has its own. */
        public Builder store(MemoryLockStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        @Override
        public MemoryLockRegistry build() {
            return new MemoryLockRegistry(store != null ? store : new MemoryLockStore(), options());
        }
    }
}
