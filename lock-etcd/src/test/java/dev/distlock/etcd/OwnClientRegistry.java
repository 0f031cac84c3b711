package dev.distlock.etcd;

import dev.distlock.core.FencedLock;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** An etcd registry and the jetcd client only it uses; closing it closes both, registry first. */
record OwnClientRegistry(EtcdLockRegistry registry, Client client) implements LockRegistry {

    @Override
    public FencedLock obtain(String key) {
        return registry.obtain(key);
    }

    @Override
    public FencedLock semaphoreLock(String key) {
        return registry.semaphoreLock(key);
    }

    @Override
    public FencedReadWriteLock readWriteLock(String key) {
        return registry.readWriteLock(key);
    }

    @Override
    public String backend() {
        return registry.backend();
    }

    @Override
    public void verify(Duration timeout) {
        registry.verify(timeout);
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return registry.holderOf(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return registry.forceRelease(key);
    }

    @Override
    public List<HoldInfo> holds() {
        return registry.holds();
    }

    @Override
    public void addObserver(LockObserver observer) {
        registry.addObserver(observer);
    }

    @Override
    public void close() {
        try {
            registry.close();
        } finally {
            client.close();
        }
    }
}
