package dev.distlock.core.memory;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/** The in-memory backend over a {@link MemoryLockStore}. */
final class MemoryLockBackend implements LockBackend<MemoryLockBackend.MemoryLease> {

    private final MemoryLockStore store;

    MemoryLockBackend(MemoryLockStore store) {
        this.store = store;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String address() {
        return "in-process store " + Integer.toHexString(System.identityHashCode(store));
    }

    @Override
    public int maxKeyLength() {
        return 4096;
    }

    @Override
    public Optional<MemoryLease> tryAcquire(LockRequest request) throws InterruptedException {
        MemoryLockStore.Grant grant = store.tryAcquire(request);
        if (grant == null) {
            return Optional.empty();
        }
        return Optional.of(new MemoryLease(
                request.key(), request.owner().value(), FencingToken.of(grant.token()), grant.grantedAtNanos()));
    }

    @Override
    public boolean renew(MemoryLease lease, Duration leaseTime) {
        return store.renew(lease.key(), lease.owner(), MemoryLockStore.nanos(leaseTime));
    }

    @Override
    public boolean release(MemoryLease lease) {
        return store.release(lease.key(), lease.owner());
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return Optional.ofNullable(store.holder(key))
                .map(held -> new LockHolder(
                        key,
                        held.holder(),
                        FencingToken.of(held.token()),
                        Optional.of(Duration.ofNanos(held.leaseLeftNanos()))));
    }

    /** Every key of a store is guarded by one lock: any two keys can be checked in one step. */
    @Override
    public boolean guardsTakes(String key, String guardKey) {
        return true;
    }

    @Override
    public boolean forceRelease(String key) {
        return store.expire(key);
    }

    record MemoryLease(String key, String owner, FencingToken token, long grantRequestedAtNanos)
            implements BackendLease {}
}
