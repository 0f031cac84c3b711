package dev.distlock.core.memory;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.ReadWriteLockContract;

class MemoryReadWriteLockContractTest extends ReadWriteLockContract {

    private final MemoryLockStore store = new MemoryLockStore();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return MemoryLockRegistry.builder().store(store).options(options).build();
    }
}
