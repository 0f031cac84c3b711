package dev.distlock.contract.memory;

import dev.distlock.contract.ReadWriteLockContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;

/** The kit checked against the in-memory backend: every registry shares one store, standing for one server. */
class MemoryReadWriteLockContractTest extends ReadWriteLockContract {

    private final MemoryLockStore store = new MemoryLockStore();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return MemoryLockRegistry.builder().store(store).options(options).build();
    }
}
