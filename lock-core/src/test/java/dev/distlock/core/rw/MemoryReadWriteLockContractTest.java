package dev.distlock.core.rw;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.MemoryLockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.ReadWriteLockContract;

class MemoryReadWriteLockContractTest extends ReadWriteLockContract {

    private final MemoryReadWriteStore store = new MemoryReadWriteStore();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return new ReadWriteTestRegistry(
                MemoryLockRegistry.builder().options(options).build(), ReadWriteLocks.inMemory(store, options));
    }
}
