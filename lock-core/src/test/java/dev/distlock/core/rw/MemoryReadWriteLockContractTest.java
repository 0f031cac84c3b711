package dev.distlock.core.rw;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.MemoryLockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.ReadWriteLockContract;

class MemoryReadWriteLockContractTest extends ReadWriteLockContract {

    private final MemoryReadWriteStore store = new MemoryReadWriteStore();

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return new MemoryRegistryWithReadWriteLocks(
                MemoryLockRegistry.builder().options(options).build(), ReadWriteLocks.inMemory(store, options));
    }

    /** The memory registry with its read/write locks beside it, as a registry that offers them wires them. */
    private record MemoryRegistryWithReadWriteLocks(MemoryLockRegistry plain, ReadWriteLocks readWrite)
            implements LockRegistry {

        @Override
        public FencedLock obtain(String key) {
            return plain.obtain(key);
        }

        @Override
        public FencedReadWriteLock readWriteLock(String key) {
            return readWrite.lock(key);
        }

        @Override
        public String backend() {
            return plain.backend();
        }

        @Override
        public void close() {
            readWrite.close();
            plain.close();
        }
    }
}
