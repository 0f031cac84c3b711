package dev.distlock.core.engine;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.RegistryEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The engine of one registry: the plain locks' engine and, when the backend has them, the read/write locks. */
final class EngineRegistry implements RegistryEngine {

    private final LockEngine<?> engine;
    private final ReadWriteEngines readWrite;

    EngineRegistry(LockEngine<?> engine, ReadWriteEngines readWrite) {
        this.engine = engine;
        this.readWrite = readWrite;
    }

    @Override
    public FencedLock lock(String key) {
        return engine.lock(key);
    }

    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        return readWrite == null ? null : readWrite.lock(key);
    }

    @Override
    public String backendName() {
        return engine.backendName();
    }

    @Override
    public String backendAddress() {
        return engine.backendAddress();
    }

    @Override
    public RegistryOptions options() {
        return engine.options();
    }

    @Override
    public void verify(Duration timeout) {
        engine.verify(timeout);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return engine.holderOf(key);
    }

    @Override
    public java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key) {
        return engine.holderOfLater(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    @Override
    public List<HoldInfo> holds() {
        if (readWrite == null) {
            return engine.holds();
        }
        List<HoldInfo> holds = new ArrayList<>(engine.holds());
        holds.addAll(readWrite.holds());
        return holds;
    }

    @Override
    public void addObserver(LockObserver observer) {
        engine.addObserver(observer);
        if (readWrite != null) {
            readWrite.addObserver(observer);
        }
    }

    @Override
    public int trackedKeys() {
        return engine.trackedKeys();
    }

    @Override
    public void close() {
        if (readWrite != null) {
            readWrite.close();
        }
        engine.close();
    }

    @Override
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        boolean closed = engine.awaitClosed(timeout);
        if (readWrite != null) {
            closed &= readWrite.awaitClosed(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        }
        return closed;
    }
}
