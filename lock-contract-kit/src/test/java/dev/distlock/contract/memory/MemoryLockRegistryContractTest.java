package dev.distlock.contract.memory;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;

/** The kit checked against the in-memory backend: every registry shares one store, standing for one server. */
class MemoryLockRegistryContractTest extends LockRegistryContract {

    private final MemoryLockStore store = new MemoryLockStore();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return MemoryLockRegistry.builder().store(store).options(options).build();
    }

    @Override
    protected boolean guardsTakes(String key, String guardKey) {
        return true; // one lock guards every key of a store
    }
}
