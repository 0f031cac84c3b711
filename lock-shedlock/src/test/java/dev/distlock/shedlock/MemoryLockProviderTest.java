package dev.distlock.shedlock;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;

class MemoryLockProviderTest extends LockProviderKit {

    private final MemoryLockStore store = new MemoryLockStore();

    @Override
    protected LockRegistry newRegistry() {
        return MemoryLockRegistry.builder().store(store).build();
    }
}
