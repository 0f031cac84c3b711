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
 * What the plain and read/write locks of one registry share in etcd, and how their holds are
 * renewed, released and ended. The registry's plain backend closes it.
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

    /** A value unique to one attempt, {@code <number>|<holder>}. Deletes compare it, so a late one spares a later entry. */
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
     * The hold of a granted entry. Its lease time counts from now, and its entry is deleted unless
     * renewed in time. {@code listener} hears when the session lease is lost.
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

    /** Confirms the session lease, usually without a request, and moves the hold's end. */
    boolean renew(EtcdLease lease, Duration leaseTime) {
        // A third of the lease leaves time for the watchdog's retry when one request hangs.
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

    /** Deletes the hold's entry. False when it was gone. A failed delete goes on in the background. */
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

    /** Deletes a hold's entry in the background, after its lease time ran out or a release failed. */
    void dropEntry(EtcdLease lease) {
        housekeeper.finish(
                "Deleting the entry " + lease.entryName(),
                () -> queues.deleteIfValue(lease.entry(), lease.value()),
                0,
                () -> !lease.session().ended);
    }

    /**
     * Withdraws an entry that may have been queued but is not held. The caller waits at most {@code
     * waitNanos}, then it goes on in the background while the session lease lasts.
     */
    void withdraw(ByteSequence entry, ByteSequence value, Session session, long waitNanos) {
        housekeeper.finish(
                "Withdrawing the queued entry " + entry.toString(StandardCharsets.UTF_8),
                () -> queues.deleteIfValue(entry, value),
                waitNanos,
                () -> !session.ended);
    }

    /** The answer of {@code request} within the request timeout. An interrupt becomes a {@link LockBackendException}. */
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

    /** Revokes the session lease, which deletes every entry left on it, and stops the background work. */
    @Override
    public void close() {
        try {
            sessions.close();
        } finally {
            housekeeper.close();
        }
    }
}
