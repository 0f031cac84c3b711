package dev.distlock.etcd;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockRegistry;
import io.etcd.jetcd.Client;

/** An etcd registry and the jetcd client only it uses; closing it closes both, registry first. */
record OwnClientRegistry(EtcdLockRegistry registry, Client client) implements LockRegistry {

    @Override
    public FencedLock obtain(String key) {
        return registry.obtain(key);
    }

    @Override
    public String backend() {
        return registry.backend();
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
