package dev.distlock.zookeeper;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.ReadWriteOwners;
import dev.distlock.core.spi.WriterGrace;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * One side (read or write) of ZooKeeper read/write locks. Its nodes stand in the key's own queue ({@link
 * LockPaths#readWriteKeyPath}) under the rules of {@link ReadWriteRule}. A {@link ZooKeeperLockBackend} of its own
 * creates, awaits and confirms them as plain lock nodes, with its own session tracker, so each side's engine hears of
 * its own lost holds. The two sides of a registry share its write holds, so that the read side can tell a downgrade.
 *
 * <p>A writer that has to wait lets new readers in for its first {@link RegistryOptions#writerGrace}. Until then it
 * creates no write node and joins the queue as soon as the queue is empty ({@link LockQueue#awaitEmptyQueue}). After
 * the grace it joins whatever stands in the queue, and new readers queue behind it. A writer with a zero grace or a
 * zero wait joins at once.
 */
final class ZooKeeperReadWriteBackend implements LockBackend<ZooKeeperLease> {

    private final ZooKeeperLockBackend nodes;
    private final LockPaths paths;
    private final LockMode mode;
    private final WriteHolds writeHolds;
    /** The writer's grace, zero on the read side. */
    private final Duration writerGrace;

    private ZooKeeperReadWriteBackend(
            ZooKeeperLockBackend nodes, LockPaths paths, LockMode mode, WriteHolds writeHolds, Duration writerGrace) {
        this.nodes = nodes;
        this.paths = paths;
        this.mode = mode;
        this.writeHolds = writeHolds;
        this.writerGrace = writerGrace;
    }

    /** Read/write locks on the client and calls of the registry's plain backend {@code plain}. */
    static ReadWriteLocks locks(ZooKeeperLockBackend plain, LockPaths paths, RegistryOptions options) {
        WriteHolds writeHolds = new WriteHolds();
        return new ReadWriteLocks(
                new ZooKeeperReadWriteBackend(
                        plain.sibling(), paths, LockMode.WRITE, writeHolds, options.writerGraceOr(Duration.ZERO)),
                new ZooKeeperReadWriteBackend(plain.sibling(), paths, LockMode.READ, writeHolds, Duration.ZERO),
                options);
    }

    @Override
    public Optional<ZooKeeperLease> tryAcquire(LockRequest request) throws InterruptedException {
        String keyPath = paths.readWriteKeyPath(request.key());
        if (mode == LockMode.WRITE) {
            if (!nodes.awaitEmptyQueue(request, keyPath, WriterGrace.start(writerGrace))) {
                return Optional.empty();
            }
            Optional<ZooKeeperLease> lease = nodes.tryAcquire(request, keyPath, ReadWriteRule.WRITE);
            lease.ifPresent(granted -> writeHolds.granted(request.owner(), granted));
            return lease;
        }
        Optional<ZooKeeperLease> write = writeHolds.heldByThreadOf(request.key(), request.owner());
        if (write.isPresent()) {
            Optional<ZooKeeperLease> downgrade =
                    nodes.tryAcquire(request, keyPath, ReadWriteRule.downgradeOf(write.get()));
            if (downgrade.isPresent()) {
                return downgrade;
            }
            // The write node was gone (its hold lost), so this thread reads as any other.
        }
        return nodes.tryAcquire(request, keyPath, ReadWriteRule.READ);
    }

    @Override
    public boolean renew(ZooKeeperLease lease, Duration leaseTime) {
        return nodes.renew(lease, leaseTime);
    }

    @Override
    public boolean release(ZooKeeperLease lease) {
        if (mode == LockMode.WRITE) {
            writeHolds.released(lease);
        }
        return nodes.release(lease);
    }

    @Override
    public String name() {
        return nodes.name();
    }

    @Override
    public String address() {
        return nodes.address();
    }

    @Override
    public int maxKeyLength() {
        return nodes.maxKeyLength();
    }

    @Override
    public LeaseExpiry leaseExpiry() {
        return nodes.leaseExpiry();
    }

    @Override
    public Duration sessionLeaseTime() {
        return nodes.sessionLeaseTime();
    }

    @Override
    public boolean isLeaseSafe(ZooKeeperLease lease) {
        return nodes.isLeaseSafe(lease);
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        nodes.setLeaseListener(listener);
    }

    @Override
    public void verify(Duration timeout) {
        nodes.verify(timeout);
    }

    @Override
    public void close() {
        nodes.close();
    }

    /**
     * The write holds of one registry's read/write locks, by key. At most one per key is valid, though a lost one may
     * linger beside its successor until its owner releases it.
     */
    private static final class WriteHolds {

        private final ConcurrentMap<String, Hold> holds = new ConcurrentHashMap<>();

        void granted(OwnerId owner, ZooKeeperLease lease) {
            holds.put(lease.key(), new Hold(owner.value(), lease));
        }

        void released(ZooKeeperLease lease) {
            holds.computeIfPresent(lease.key(), (key, hold) -> hold.lease().equals(lease) ? null : hold);
        }

        /** The write hold of {@code key} that belongs to {@code reader}'s thread, if any. */
        Optional<ZooKeeperLease> heldByThreadOf(String key, OwnerId reader) {
            Hold hold = holds.get(key);
            return hold != null && ReadWriteOwners.sameThread(hold.owner(), reader)
                    ? Optional.of(hold.lease())
                    : Optional.empty();
        }

        private record Hold(String owner, ZooKeeperLease lease) {}
    }
}
