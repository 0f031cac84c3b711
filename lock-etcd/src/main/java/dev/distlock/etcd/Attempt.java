package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to take a key: an etcd lease of its own, a queue entry attached to it, and the
 * wait for every older entry to go. The entry with the lowest create revision holds the lock;
 * a waiter watches only the entry just before its own, so a release wakes one waiter, not all.
 * While queued, the attempt renews its lease every third of the lease time, so a long wait
 * does not outlive its own entry.
 */
final class Attempt {

    enum Outcome {
        /** Every older entry is gone and the lease is alive: the lock is ours. */
        GRANTED,
        /** The deadline passed first; the entry is still queued and must be withdrawn. */
        TIMED_OUT,
        /** The lease (and so the entry) ended while queued, for instance while etcd was unreachable. */
        LEASE_LOST
    }

    private static final Logger log = LoggerFactory.getLogger(Attempt.class);

    private final Client client;
    private final EtcdRequests requests;
    private final LockRequest request;
    private final Deadline deadline;
    private final ByteSequence queue;
    private final ByteSequence entry;
    private final long leaseId;
    private final long refreshNanos;

    private long entryRevision;
    private ByteSequence predecessor;
    private long readRevision;
    /** {@link System#nanoTime()} before the last request that reset the lease's TTL (grant or keep-alive). */
    private long leaseRefreshedAt;

    private Attempt(
            Client client, EtcdRequests requests, EtcdKeys keys, LockRequest request, long leaseId, long grantSentAt) {
        this.client = client;
        this.requests = requests;
        this.request = request;
        this.deadline = request.deadline();
        this.queue = keys.queue(request.key());
        this.entry = keys.entry(request.key(), leaseId);
        this.leaseId = leaseId;
        this.refreshNanos = Math.max(1, request.leaseTime().toNanos() / 3);
        this.leaseRefreshedAt = grantSentAt;
    }

    /**
     * Grants a lease for the attempt and queues its entry, reading in the same transaction who is
     * ahead. Null when the lease ended before the entry could be written (etcd refuses the put);
     * the caller may try again.
     */
    static Attempt enqueue(Client client, EtcdRequests requests, EtcdKeys keys, LockRequest request)
            throws InterruptedException {
        long grantSentAt = System.nanoTime();
        long leaseId = requests.await(
                        client.getLeaseClient().grant(ttlSeconds(request)),
                        requests.timeoutWithin(request.deadline()),
                        request.key(),
                        "Granting a lease")
                .getID();
        Attempt attempt = new Attempt(client, requests, keys, request, leaseId, grantSentAt);
        try {
            attempt.putEntry();
        } catch (LockBackendException e) {
            attempt.abandon();
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                return null;
            }
            throw e;
        } catch (InterruptedException e) {
            attempt.withdrawQuietly();
            throw e;
        } catch (RuntimeException e) {
            attempt.abandon();
            throw e;
        }
        return attempt;
    }

    /** etcd leases count whole seconds; rounding up keeps the server's lease at least as long as the local view. */
    static long ttlSeconds(LockRequest request) {
        long millis = request.leaseTime().toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    private void putEntry() throws InterruptedException {
        ByteSequence owner = ByteSequence.from(request.owner().value(), StandardCharsets.UTF_8);
        GetOption newestTwo = GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(2)
                .build();
        TxnResponse response = requests.await(
                client.getKVClient()
                        .txn()
                        .Then(
                                Op.put(
                                        entry,
                                        owner,
                                        PutOption.builder().withLeaseId(leaseId).build()),
                                Op.get(queue, newestTwo))
                        .commit(),
                requests.timeoutWithin(deadline),
                request.key(),
                "Queueing for the lock");
        List<KeyValue> newest = response.getGetResponses().get(0).getKvs();
        if (newest.isEmpty() || !newest.get(0).getKey().equals(entry)) {
            throw requests.failure(
                    request.key(),
                    "the queue entry just written is not the newest under " + text(queue)
                            + "; is something else writing there? Use a namespace of its own.",
                    null);
        }
        entryRevision = newest.get(0).getCreateRevision();
        predecessor = newest.size() > 1 ? newest.get(1).getKey() : null;
        readRevision = response.getHeader().getRevision();
    }

    /** Waits until the entry is first in the queue, the deadline passes, or the lease is lost. */
    Outcome awaitTurn() throws InterruptedException {
        boolean waited = false;
        while (predecessor != null) {
            if (deadline.hasPassed()) {
                return Outcome.TIMED_OUT;
            }
            waited = true;
            try (PredecessorWatch watch =
                    new PredecessorWatch(client.getWatchClient(), predecessor, readRevision + 1)) {
                while (!watch.await(nanosUntilWakeUp())) {
                    if (deadline.hasPassed()) {
                        return Outcome.TIMED_OUT;
                    }
                    if (!refreshLease()) {
                        return Outcome.LEASE_LOST;
                    }
                }
            }
            if (!readPredecessor()) {
                return Outcome.LEASE_LOST;
            }
        }
        return confirmLease(waited) ? Outcome.GRANTED : Outcome.LEASE_LOST;
    }

    private long nanosUntilWakeUp() {
        long untilRefresh = leaseRefreshedAt + refreshNanos - System.nanoTime();
        return Math.max(0, Math.min(deadline.remainingNanos(), untilRefresh));
    }

    /** Reads the entry just before ours, if our entry still exists. */
    private boolean readPredecessor() throws InterruptedException {
        GetOption justBefore = GetOption.builder()
                .isPrefix(true)
                .withKeysOnly(true)
                .withMaxCreateRevision(entryRevision - 1)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(1)
                .build();
        TxnResponse response = requests.await(
                client.getKVClient()
                        .txn()
                        .If(new Cmp(entry, Cmp.Op.EQUAL, CmpTarget.createRevision(entryRevision)))
                        .Then(Op.get(queue, justBefore))
                        .commit(),
                requests.timeoutWithin(deadline),
                request.key(),
                "Reading the lock queue");
        if (!response.isSucceeded()) {
            return false;
        }
        List<KeyValue> older = response.getGetResponses().get(0).getKvs();
        predecessor = older.isEmpty() ? null : older.get(0).getKey();
        readRevision = response.getHeader().getRevision();
        return true;
    }

    /**
     * Makes sure the lease is alive at the moment the lock is ours (etcd can hand a queue head
     * to a lease that expired meanwhile). Without a wait, the put of the entry in the same
     * transaction that found the queue empty proves it: etcd refuses a put on a dead lease, and
     * the lease was granted a moment ago. After a wait, a keep-alive both proves it and restarts
     * the lease's full TTL, and the local lease view counts from just before it.
     */
    private boolean confirmLease(boolean waited) throws InterruptedException {
        if (!waited && System.nanoTime() - leaseRefreshedAt < refreshNanos) {
            return true;
        }
        return refreshLease();
    }

    private boolean refreshLease() throws InterruptedException {
        long sentAt = System.nanoTime();
        try {
            long ttl = requests.await(
                            client.getLeaseClient().keepAliveOnce(leaseId),
                            requests.timeoutWithin(deadline),
                            request.key(),
                            "Renewing the lease of a queued entry")
                    .getTTL();
            if (ttl <= 0) {
                return false;
            }
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                log.debug("The lease of the queued entry of '{}' ended while waiting; queueing again", request.key());
                return false;
            }
            throw e;
        }
        leaseRefreshedAt = sentAt;
        return true;
    }

    EtcdLease lease() {
        return new EtcdLease(request.key(), text(entry), leaseId, FencingToken.of(entryRevision), leaseRefreshedAt);
    }

    /** Removes the queued entry (by revoking its lease) so that it never holds others up; throws if etcd cannot be reached. */
    void withdraw() {
        try {
            requests.awaitUninterruptibly(
                    client.getLeaseClient().revoke(leaseId),
                    requests.cleanupTimeout(),
                    request.key(),
                    "Withdrawing the queued entry " + text(entry) + " (it also frees itself when its lease ends)");
        } catch (LockBackendException e) {
            if (!EtcdRequests.isLeaseNotFound(e.getCause())) {
                throw e;
            }
        }
    }

    /** {@link #withdraw()} for an attempt that is failing anyway: errors are logged, not thrown. */
    void withdrawQuietly() {
        try {
            withdraw();
        } catch (RuntimeException e) {
            log.debug("Could not withdraw the queued entry {}; it frees itself when its lease ends", text(entry), e);
        }
    }

    /** Revokes the lease without waiting, for an attempt whose server is failing or whose entry is gone. */
    void abandon() {
        client.getLeaseClient().revoke(leaseId).exceptionally(e -> null);
    }

    private static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
