package dev.distlock.core.memory;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.BackendLease;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WriterGrace;
import java.time.Duration;
import java.util.Optional;

/** One side (read or write) of in-memory read/write locks over a {@link MemoryReadWriteStore}. */
final class MemoryReadWriteBackend implements LockBackend<MemoryReadWriteBackend.Lease> {

    private final MemoryReadWriteStore store;
    private final LockMode mode;
    /** The writer's grace; zero on the read side. */
    private final Duration writerGrace;

    MemoryReadWriteBackend(MemoryReadWriteStore store, LockMode mode, Duration writerGrace) {
        this.store = store;
        this.mode = mode;
        this.writerGrace = writerGrace;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String address() {
        return "in-process read/write store " + Integer.toHexString(System.identityHashCode(store));
    }

    @Override
    public int maxKeyLength() {
        return 4096;
    }

    @Override
    public Optional<Lease> tryAcquire(LockRequest request) throws InterruptedException {
        MemoryReadWriteStore.Grant grant = store.acquire(request, mode, WriterGrace.start(writerGrace));
        if (grant == null) {
            return Optional.empty();
        }
        return Optional.of(new Lease(
                request.key(), request.owner().value(), FencingToken.of(grant.token()), grant.grantedAtNanos()));
    }

    @Override
    public boolean renew(Lease lease, Duration leaseTime) {
        return store.renew(lease.key(), mode, lease.owner(), leaseTime);
    }

    @Override
    public boolean release(Lease lease) {
        return store.release(lease.key(), mode, lease.owner());
    }

    record Lease(String key, String owner, FencingToken token, long grantRequestedAtNanos) implements BackendLease {}
}
