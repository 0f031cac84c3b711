package dev.distlock.core.rw;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockRegistry;

/** A plain registry with read/write locks beside it, wired as a registry that offers them wires them. */
record ReadWriteTestRegistry(LockRegistry plain, ReadWriteLocks readWrite) implements LockRegistry {

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
