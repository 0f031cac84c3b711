package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One attempt to take a key: a queue entry on the registry's session lease, and the wait for
 * every older entry to go. The entry with the lowest create revision holds the lock; a waiter
 * watches only the entry just before its own, so a release wakes one waiter, not all.
 */
final class Attempt {

    enum Outcome {
        /** Every older entry is gone and the session lease is alive: the lock is ours. */
        GRANTED,
        /** The deadline passed first; the entry is still queued and must be withdrawn. */
        TIMED_OUT,
        /** The entry went while queued (its session lease ended); queue again. */
        ENTRY_LOST
    }

    /** How often a waiter looks whether its session lease is still alive. */
    private static final long SESSION_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final EtcdLockBackend backend;
    private final LockRequest request;
    private final Deadline deadline;
    private final long cutoff;
    private final SessionLease.Session session;
    private final ByteSequence queue;
    private final ByteSequence entry;
    private final ByteSequence value;

    private long entryRevision;
    private ByteSequence predecessor;
    private long readRevision;

    private Attempt(
            EtcdLockBackend backend,
            LockRequest request,
            long cutoff,
            SessionLease.Session session,
            ByteSequence entry,
            ByteSequence value) {
        this.backend = backend;
        this.request = request;
        this.deadline = request.deadline();
        this.cutoff = cutoff;
        this.session = session;
        this.queue = backend.keys().queue(request.key());
        this.entry = entry;
        this.value = value;
    }

    /**
     * Queues an entry on the session lease, reading in the same transaction who is ahead. Null
     * when the session lease ended before the entry could be written; the caller may try again.
     * The entry's value is unique to the attempt ({@code <number>|<holder>}); its name is the
     * session's usual one for the key, or a numbered one while an earlier entry still has that.
     */
    static Attempt enqueue(EtcdLockBackend backend, LockRequest request, long cutoff) throws InterruptedException {
        SessionLease.Session session = backend.sessions().get(cutoff, request.key());
        long number = backend.nextEntry();
        String holder = request.holder() == null ? "" : request.holder();
        ByteSequence value = ByteSequence.from(Long.toHexString(number) + "|" + holder, StandardCharsets.UTF_8);
        EtcdKeys keys = backend.keys();
        Attempt attempt = new Attempt(backend, request, cutoff, session, keys.entry(request.key(), session.id), value);
        if (attempt.queued()) {
            return attempt;
        }
        attempt = new Attempt(backend, request, cutoff, session, keys.entry(request.key(), session.id, number), value);
        return attempt.queued() ? attempt : null;
    }

    /** Puts the entry; false when the session lease ended first or, rarely, the name was taken. */
    private boolean queued() throws InterruptedException {
        try {
            return putEntry();
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                backend.sessions().end(session, "etcd no longer had the registry's session lease");
                return false;
            }
            withdraw(0);
            throw e;
        } catch (InterruptedException | RuntimeException e) {
            withdraw(0);
            throw e;
        }
    }

    private boolean putEntry() throws InterruptedException {
        TxnResponse response = backend.requests()
                .await(
                        () -> backend.queues().enqueue(queue, entry, value, session.id),
                        backend.requests().timeoutBefore(cutoff),
                        request.key(),
                        "Queueing for the lock");
        if (!response.isSucceeded()) {
            return false;
        }
        List<KeyValue> newest = response.getGetResponses().get(0).getKvs();
        if (newest.isEmpty() || !newest.get(0).getKey().equals(entry)) {
            throw backend.requests()
                    .failure(
                            request.key(),
                            "the queue entry just written is not the newest under " + text(queue)
                                    + "; is something else writing there? Use a namespace of its own.",
                            null);
        }
        entryRevision = newest.get(0).getCreateRevision();
        predecessor = newest.size() > 1 ? newest.get(1).getKey() : null;
        readRevision = response.getHeader().getRevision();
        return true;
    }

    /** Waits until the entry is first in the queue, the deadline passes, or the entry is lost. */
    Outcome awaitTurn() throws InterruptedException {
        while (predecessor != null) {
            if (deadline.hasPassed()) {
                return Outcome.TIMED_OUT;
            }
            try (PredecessorWatch watch =
                    new PredecessorWatch(backend.client().getWatchClient(), predecessor, readRevision + 1)) {
                while (!watch.await(Math.min(deadline.remainingNanos(), SESSION_CHECK_NANOS))) {
                    if (deadline.hasPassed()) {
                        return Outcome.TIMED_OUT;
                    }
                    if (!session.isAlive()) {
                        return Outcome.ENTRY_LOST;
                    }
                }
            }
            if (!readPredecessor()) {
                return Outcome.ENTRY_LOST;
            }
        }
        return session.isAlive() ? Outcome.GRANTED : Outcome.ENTRY_LOST;
    }

    /** Reads the entry just before ours, if our entry still exists. */
    private boolean readPredecessor() throws InterruptedException {
        TxnResponse response = backend.requests()
                .await(
                        () -> backend.queues().entryBefore(queue, entry, entryRevision),
                        backend.requests().timeoutBefore(cutoff),
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
     * The hold: its lease time counts from now, and unless renewed its entry is deleted when
     * that time is up (the session lease alone would keep it).
     */
    EtcdLease grant() {
        long grantedAt = System.nanoTime();
        EtcdLease lease =
                new EtcdLease(request.key(), entry, value, session, FencingToken.of(entryRevision), grantedAt);
        backend.sessions().track(lease, grantedAt + request.leaseTime().toNanos(), () -> backend.dropEntry(lease));
        return lease;
    }

    /**
     * Deletes the queued entry so that it never holds others up. The caller waits for it at
     * most {@code waitNanos}; after that it goes on in the background until etcd confirms it.
     */
    void withdraw(long waitNanos) {
        backend.housekeeper()
                .finish(
                        "Withdrawing the queued entry " + text(entry),
                        () -> backend.queues().deleteIfValue(entry, value),
                        waitNanos,
                        () -> !session.ended);
    }

    /** The time the caller has left for withdrawing after its wait timed out. */
    long withdrawalTime() {
        return backend.requests().timeoutBefore(cutoff);
    }

    static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
