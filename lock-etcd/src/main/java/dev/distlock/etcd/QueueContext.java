package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What every lock of one registry shares in etcd, plain and read/write alike: the client, the key
 * layout, the request limits, the one session lease every entry is attached to, and the
 * housekeeper thread. The holds of all lock kinds are renewed, released and ended here the same
 * way. Closed by the registry's plain backend, after the read/write locks.
 */
final class QueueContext implements AutoCloseable {

    private final Client client;
    private final EtcdKeys keys;
    private final EtcdRequests requests;
    private final LockQueues queues;
    private final Housekeeper housekeeper;
    private final Sessions sessions;
    private final AtomicLong entryNumbers = new AtomicLong();

    QueueContext(Client client, EtcdKeys keys, EtcdRequests requests, Duration leaseTime) {
        this.client = client;
        this.keys = keys;
        this.requests = requests;
        this.queues = new LockQueues(client.getKVClient());
        this.housekeeper = new Housekeeper(requests.timeout());
        this.sessions = new Sessions(client, queues, requests, housekeeper, leaseTime);
    }

    /** A value unique to one attempt ({@code <number>|<holder>}): deletes compare it, so a late one never removes a later entry. */
    ByteSequence entryValue(LockRequest request) {
        String holder = request.holder() == null ? "" : request.holder();
        return ByteSequence.from(
                Long.toHexString(entryNumbers.incrementAndGet()) + "|" + holder, StandardCharsets.UTF_8);
    }

    /** A number unique within the registry, for an entry name when the session's usual one is taken. */
    long nextEntry() {
        return entryNumbers.incrementAndGet();
    }

    /**
     * The hold of a granted entry: its lease time counts from now, and unless renewed its entry is
     * deleted when that time is up (the session lease alone would keep it). Losing the session
     * lease is reported to {@code listener}.
     */
    EtcdLease hold(LockRequest request, QueuedEntry entry, FencingToken token, LeaseListener listener) {
        long grantedAt = System.nanoTime();
        EtcdLease lease = new EtcdLease(request.key(), entry.key(), entry.value(), entry.session(), token, grantedAt);
        sessions.track(
                lease,
                request.leaseTime(),
                grantedAt + request.leaseTime().toNanos(),
                () -> dropEntry(lease),
                listener);
        return lease;
    }

    /** Confirms the session lease (usually without a request, see {@link Sessions}) and moves the hold's end. */
    boolean renew(EtcdLease lease, Duration leaseTime) {
        // A third of the lease leaves time for the watchdog's retry when one request hangs (a dead member).
        long timeout = Math.min(requests.timeout(), Math.max(1, leaseTime.toNanos() / 3));
        try {
            return sessions.renew(lease, leaseTime, timeout);
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                sessions.end(lease.session(), "etcd no longer had the registry's session lease");
                return false;
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(lease.key(), "renewal was interrupted", e);
        }
    }

    /** Deletes the hold's entry; none there means its lease had ended. A failed delete goes on in the background. */
    boolean release(EtcdLease lease) {
        sessions.untrack(lease);
        try {
            return requests.awaitUninterruptibly(
                            () -> queues.deleteIfValue(lease.entry(), lease.value()),
                            requests.releaseTimeout(),
                            lease.key(),
                            "Releasing (deleting " + lease.entryName() + ")")
                    .isSucceeded();
        } catch (LockBackendException e) {
            dropEntry(lease);
            throw e;
        }
    }

    /** Deletes a hold's entry in the background (its lease time ran out, or a release failed). */
    void dropEntry(EtcdLease lease) {
        housekeeper.finish(
                "Deleting the entry " + lease.entryName(),
                () -> queues.deleteIfValue(lease.entry(), lease.value()),
                0,
                () -> !lease.session().ended);
    }

    /**
     * Deletes an entry that was queued (or may have been) but is not held, so that it never holds
     * others up. The caller waits for it at most {@code waitNanos}; after that it goes on in the
     * background until etcd confirms it or the session lease, which takes the entry with it, ends.
     */
    void withdraw(ByteSequence entry, ByteSequence value, Session session, long waitNanos) {
        housekeeper.finish(
                "Withdrawing the queued entry " + entry.toString(StandardCharsets.UTF_8),
                () -> queues.deleteIfValue(entry, value),
                waitNanos,
                () -> !session.ended);
    }

    /** The answer of {@code request} within the request timeout; an interrupt becomes a {@link LockBackendException}. */
    <T> T call(Supplier<CompletableFuture<T>> request, String key, String action) {
        try {
            return requests.await(request, requests.timeout(), key, action);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.failure(key, action + " was interrupted", e);
        }
    }

    Client client() {
        return client;
    }

    EtcdKeys keys() {
        return keys;
    }

    EtcdRequests requests() {
        return requests;
    }

    LockQueues queues() {
        return queues;
    }

    Sessions sessions() {
        return sessions;
    }

    /** Revokes the session lease (which deletes every entry left on it) and stops the background work. */
    @Override
    public void close() {
        try {
            sessions.close();
        } finally {
            housekeeper.close();
        }
    }
}
