package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;

/** The pair of one key: the read side as the engine gives it, the write side refusing upgrades. */
final class EngineReadWriteLock implements FencedReadWriteLock {

    private final FencedLock read;
    private final FencedLock write;

    EngineReadWriteLock(FencedLock write, FencedLock read) {
        this.read = read;
        this.write = new WriteLock(write, read);
    }

    @Override
    public String key() {
        return read.key();
    }

    @Override
    public FencedLock readLock() {
        return read;
    }

    @Override
    public FencedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "FencedReadWriteLock[" + write + "]";
    }
}
