package dev.distlock.etcd;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockMode;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.ReadWriteLocks;
import dev.distlock.core.spi.WriterGrace;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * One side (read or write) of etcd read/write locks, queued by {@link ReadWriteRule} in the key's
 * read/write queue. A waiting writer lets new readers in for its {@link RegistryOptions#writerGrace}.
 * A downgrade's token is the write hold's, every other hold's is its entry's create revision.
 */
final class EtcdReadWriteBackend implements LockBackend<EtcdLease> {

    private final QueueContext etcd;
    private final LockMode mode;
    private final ReadWriteRule rule;
    private final ThreadWriteHolds writeHolds;
    private final Duration writerGrace;
    private volatile LeaseListener listener = (lease, reason) -> {};

    private EtcdReadWriteBackend(QueueContext etcd, LockMode mode, ThreadWriteHolds writeHolds, Duration writerGrace) {
        this.etcd = etcd;
        this.mode = mode;
        this.rule = new ReadWriteRule(etcd.keys(), mode);
        this.writeHolds = writeHolds;
        this.writerGrace = writerGrace;
    }

    /** Read/write locks over the registry's etcd context, which its plain backend closes. */
    static ReadWriteLocks locks(QueueContext etcd, RegistryOptions options) {
        ThreadWriteHolds writeHolds = new ThreadWriteHolds();
        return new ReadWriteLocks(
                new EtcdReadWriteBackend(etcd, LockMode.WRITE, writeHolds, options.writerGraceOr(Duration.ZERO)),
                new EtcdReadWriteBackend(etcd, LockMode.READ, writeHolds, Duration.ZERO),
                options);
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String address() {
        return etcd.requests().address();
    }

    @Override
    public int maxKeyLength() {
        return EtcdLockBackend.MAX_KEY_LENGTH;
    }

    @Override
    public Optional<EtcdLease> tryAcquire(LockRequest request) throws InterruptedException {
        if (mode == LockMode.READ) {
            EtcdLease write = writeHolds.heldBy(request.owner(), request.key());
            if (write != null) {
                Optional<EtcdLease> downgraded = downgrade(request, write);
                if (downgraded.isPresent()) {
                    return downgraded;
                }
            }
            return Attempt.acquire(etcd, rule, request, listener);
        }
        // A zero wait takes the key if it is free and never waits, so it has no grace to give.
        if (!request.deadline().hasPassed() && !awaitGrace(request)) {
            return Optional.empty();
        }
        Optional<EtcdLease> lease = Attempt.acquire(etcd, rule, request, listener);
        lease.ifPresent(granted -> writeHolds.granted(request.owner(), granted));
        return lease;
    }

    /**
     * A writer's grace ({@link WriterGrace}). It waits without an entry, watching the newest entry,
     * while the queue has entries, so that readers that come meanwhile get in.
     *
     * @return true to queue now, false when the deadline passed first
     */
    private boolean awaitGrace(LockRequest request) throws InterruptedException {
        WriterGrace grace = WriterGrace.start(writerGrace);
        Deadline deadline = request.deadline();
        long cutoff = etcd.requests().cutoff(deadline);
        ByteSequence queue = rule.queue(request.key());
        while (grace.isOpen() && !deadline.hasPassed()) {
            GetResponse newest = Retries.retried(
                    deadline,
                    request.key(),
                    () -> etcd.requests()
                            .await(
                                    () -> etcd.queues().newest(queue),
                                    etcd.requests().timeoutBefore(cutoff),
                                    request.key(),
                                    "Reading the lock queue"));
            if (newest.getKvs().isEmpty()) {
                return true;
            }
            try (PredecessorWatch watch = new PredecessorWatch(
                    etcd.client(),
                    newest.getKvs().get(0).getKey(),
                    newest.getHeader().getRevision())) {
                watch.await(grace.cap(deadline.remainingNanos()));
            }
        }
        return !deadline.hasPassed();
    }

    /**
     * A read for the thread that holds the key's write lock, granted at once as a {@code d} entry
     * while the write hold's entry is still there. Empty when that entry is gone.
     */
    private Optional<EtcdLease> downgrade(LockRequest request, EtcdLease write) throws InterruptedException {
        long cutoff = etcd.requests().cutoff(request.deadline());
        Session session = etcd.sessions().get(cutoff, request.key());
        ByteSequence value = etcd.entryValue(request);
        EtcdKeys keys = etcd.keys();
        ByteSequence[] names = {
            ReadWriteRule.usualEntry(keys, request.key(), ReadWriteRule.DOWNGRADED, request.owner(), session.id),
            keys.readWriteEntry(request.key(), ReadWriteRule.DOWNGRADED, session.id, etcd.nextEntry())
        };
        for (ByteSequence entry : names) {
            boolean written;
            try {
                written = etcd.requests()
                        .await(
                                () -> etcd.queues()
                                        .enqueueWhileExists(
                                                entry,
                                                value,
                                                session.id,
                                                write.entry(),
                                                write.token().value()),
                                etcd.requests().timeoutBefore(cutoff),
                                request.key(),
                                "Taking the read lock beside the write lock")
                        .isSucceeded();
            } catch (LockBackendException e) {
                if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                    etcd.sessions().end(session, "etcd no longer had the registry's session lease");
                    return Optional.empty();
                }
                etcd.withdraw(entry, value, session, 0);
                throw e;
            } catch (InterruptedException | RuntimeException e) {
                etcd.withdraw(entry, value, session, 0);
                throw e;
            }
            if (written) {
                return Optional.of(etcd.hold(request, new QueuedEntry(entry, value, session), write.token(), listener));
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean renew(EtcdLease lease, Duration leaseTime) {
        return etcd.renew(lease, leaseTime);
    }

    @Override
    public boolean release(EtcdLease lease) {
        writeHolds.released(lease);
        return etcd.release(lease);
    }

    /** A hold is valid only while its session lease is known to be alive. */
    @Override
    public boolean isLeaseSafe(EtcdLease lease) {
        return lease.session().isAlive();
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        this.listener = listener;
    }

    /** Nothing of its own to close. The registry's plain backend closes the shared context. */
    @Override
    public void close() {}
}
