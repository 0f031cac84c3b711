package dev.distlock.etcd;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to take a key. It queues an entry on the registry's session lease and waits until
 * the {@link QueueRule} finds no older entry in its way. The entry's create revision is the token.
 */
final class Attempt {

    enum Outcome {
        /** Nothing holds the entry back and the session lease is alive. */
        GRANTED,
        /** The deadline passed first. The entry is still queued and must be withdrawn. */
        TIMED_OUT,
        /** The entry went while queued, with its session lease. */
        ENTRY_LOST
    }

    /** How often a waiter looks whether its session lease is still alive. */
    private static final long SESSION_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /** How long an interrupted waiter waits for its entry's withdrawal before it throws. */
    private static final long INTERRUPTED_WITHDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** When a waiter first reads its queue again without a watch event. The pause doubles up to the last. */
    private static final long FIRST_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final long LAST_CHECK_NANOS = TimeUnit.SECONDS.toNanos(4);

    private static final Logger log = LoggerFactory.getLogger(Attempt.class);

    private final QueueContext etcd;
    private final QueueRule rule;
    private final LockRequest request;
    private final Deadline deadline;
    private final long cutoff;
    private final Session session;
    private final ByteSequence queue;
    private final ByteSequence entry;
    private final ByteSequence value;

    private long entryRevision;
    private ByteSequence blocker;
    private long readRevision;

    private Attempt(QueueContext etcd, QueueRule rule, LockRequest request, long cutoff, QueuedEntry queued) {
        this.etcd = etcd;
        this.rule = rule;
        this.request = request;
        this.deadline = request.deadline();
        this.cutoff = cutoff;
        this.session = queued.session();
        this.queue = rule.queue(request.key());
        this.entry = queued.key();
        this.value = queued.value();
    }

    /**
     * Queues for the key until the entry is granted or the deadline passes. Whatever was queued and
     * not granted is withdrawn before this returns or throws.
     *
     * @param listener hears when a granted hold is lost with the session lease
     */
    static Optional<EtcdLease> acquire(QueueContext etcd, QueueRule rule, LockRequest request, LeaseListener listener)
            throws InterruptedException {
        long cutoff = etcd.requests().cutoff(request.deadline());
        while (true) {
            Attempt attempt = enqueue(etcd, rule, request, cutoff);
            if (attempt == null) {
                if (request.deadline().hasPassed()) {
                    return Optional.empty();
                }
                continue;
            }
            Outcome outcome;
            try {
                outcome = attempt.awaitTurn();
            } catch (InterruptedException e) {
                attempt.withdraw(INTERRUPTED_WITHDRAW_NANOS);
                throw e;
            } catch (RuntimeException e) {
                attempt.withdraw(0);
                throw e;
            }
            switch (outcome) {
                case GRANTED:
                    return Optional.of(etcd.hold(
                            request, attempt.queuedEntry(), FencingToken.of(attempt.entryRevision), listener));
                case TIMED_OUT:
                    attempt.withdraw(etcd.requests().timeoutBefore(cutoff));
                    return Optional.empty();
                case ENTRY_LOST:
                default:
                    attempt.withdraw(0);
                    if (request.deadline().hasPassed()) {
                        return Optional.empty();
                    }
            }
        }
    }

    /**
     * Queues an entry under the usual name, or a numbered one while that is taken. Null when the
     * session lease ended before the entry could be written.
     */
    private static Attempt enqueue(QueueContext etcd, QueueRule rule, LockRequest request, long cutoff)
            throws InterruptedException {
        Session session = Retries.retried(
                request.deadline(), request.key(), () -> etcd.sessions().get(cutoff, request.key()));
        ByteSequence value = etcd.entryValue(request);
        Attempt attempt = new Attempt(
                etcd,
                rule,
                request,
                cutoff,
                new QueuedEntry(rule.entry(request.key(), request.owner(), session.id), value, session));
        if (attempt.queued()) {
            return attempt;
        }
        attempt = new Attempt(
                etcd,
                rule,
                request,
                cutoff,
                new QueuedEntry(rule.entry(request.key(), session.id, etcd.nextEntry()), value, session));
        return attempt.queued() ? attempt : null;
    }

    private QueuedEntry queuedEntry() {
        return new QueuedEntry(entry, value, session);
    }

    /** Puts the entry. False when the session lease ended first or the name was taken. */
    private boolean queued() throws InterruptedException {
        try {
            return Retries.retried(deadline, request.key(), this::putEntry);
        } catch (LockBackendException e) {
            if (EtcdRequests.isLeaseNotFound(e.getCause())) {
                etcd.sessions().end(session, "etcd no longer had the registry's session lease");
                return false;
            }
            withdraw(0);
            throw e;
        } catch (InterruptedException e) {
            withdraw(INTERRUPTED_WITHDRAW_NANOS);
            throw e;
        } catch (RuntimeException e) {
            withdraw(0);
            throw e;
        }
    }

    /** Puts the entry unless its name exists. An entry with this attempt's value is a lost answer's, and counts. */
    private boolean putEntry() throws InterruptedException {
        TxnResponse response = etcd.requests()
                .await(
                        () -> etcd.queues().enqueue(entry, value, session.id, rule.readsAfterPut(queue)),
                        etcd.requests().timeoutBefore(cutoff),
                        request.key(),
                        "Queueing for the lock");
        if (!response.isSucceeded()) {
            List<KeyValue> existing = response.getGetResponses().get(0).getKvs();
            if (existing.isEmpty() || !existing.get(0).getValue().equals(value)) {
                return false;
            }
            entryRevision = existing.get(0).getCreateRevision();
            return readBlocker();
        }
        List<KeyValue> newest = response.getGetResponses().get(0).getKvs();
        if (newest.isEmpty() || !newest.get(0).getKey().equals(entry)) {
            throw etcd.requests()
                    .failure(
                            request.key(),
                            "the queue entry just written is not the newest under " + text(queue)
                                    + "; is something else writing there? Use a namespace of its own.");
        }
        entryRevision = newest.get(0).getCreateRevision();
        blocker = firstOther(response.getGetResponses());
        readRevision = response.getHeader().getRevision();
        return true;
    }

    /** Waits until nothing holds the entry back, the deadline passes, or the entry is lost. */
    Outcome awaitTurn() throws InterruptedException {
        while (blocker != null) {
            if (deadline.hasPassed()) {
                return Outcome.TIMED_OUT;
            }
            ByteSequence watched = blocker;
            boolean woken;
            try (PredecessorWatch watch = new PredecessorWatch(etcd.client(), blocker, readRevision)) {
                long check = FIRST_CHECK_NANOS;
                long checkAt = System.nanoTime() + check;
                while (!(woken = watch.await(Math.min(deadline.remainingNanos(), SESSION_CHECK_NANOS)))) {
                    if (deadline.hasPassed()) {
                        return Outcome.TIMED_OUT;
                    }
                    if (!session.isAlive()) {
                        return Outcome.ENTRY_LOST;
                    }
                    if (System.nanoTime() - checkAt >= 0) {
                        if (!Retries.retried(deadline, request.key(), this::readBlocker)) {
                            return Outcome.ENTRY_LOST;
                        }
                        if (!watched.equals(blocker)) {
                            log.debug(
                                    "Lock '{}': the queue moved on without a watch event on {}",
                                    request.key(),
                                    text(watched));
                            break;
                        }
                        check = Math.min(LAST_CHECK_NANOS, check * 2);
                        checkAt = System.nanoTime() + check;
                    }
                }
            }
            if (woken && !Retries.retried(deadline, request.key(), this::readBlocker)) {
                return Outcome.ENTRY_LOST;
            }
        }
        return session.isAlive() ? Outcome.GRANTED : Outcome.ENTRY_LOST;
    }

    /** Reads the nearest entry still in the way, if our entry still exists. */
    private boolean readBlocker() throws InterruptedException {
        TxnResponse response = etcd.requests()
                .await(
                        () -> etcd.queues().readIfExists(entry, entryRevision, rule.readsBefore(queue, entryRevision)),
                        etcd.requests().timeoutBefore(cutoff),
                        request.key(),
                        "Reading the lock queue");
        if (!response.isSucceeded()) {
            return false;
        }
        blocker = firstOther(response.getGetResponses());
        readRevision = response.getHeader().getRevision();
        return true;
    }

    /** The nearest entry in the way, the first one found by the rule's reads that is not ours. */
    private ByteSequence firstOther(List<GetResponse> reads) {
        for (GetResponse read : reads) {
            for (KeyValue found : read.getKvs()) {
                if (!found.getKey().equals(entry)) {
                    return found.getKey();
                }
            }
        }
        return null;
    }

    /** Deletes the queued entry, waiting at most {@code waitNanos} before it goes on in the background. */
    void withdraw(long waitNanos) {
        etcd.withdraw(entry, value, session, waitNanos);
    }

    static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
