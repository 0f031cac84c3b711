package dev.distlock.etcd;

import dev.distlock.core.spi.LeaseListener;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's one etcd lease, which every queue entry of the registry is attached to, kept
 * alive by one keep-alive request at a time for all of them. Its TTL is 4/3 of the registry's
 * lease time (rounded up to whole seconds), and it is renewed often enough that it always covers
 * a full lease time from now; so a renewal of a hold needs no request at all. A hold's own
 * lease time is kept here instead: a hold not renewed by its due time (a fixed lease that ran
 * out, a hold the engine gave up) has its entry deleted. When the session lease is lost, every
 * hold on it is reported lost and a new session lease is granted for later acquisitions.
 */
final class SessionLease implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SessionLease.class);

    private final Client client;
    private final EtcdRequests requests;
    private final Housekeeper housekeeper;
    private final long ttlSeconds;
    private final Map<EtcdLease, Tracked> holds = new ConcurrentHashMap<>();
    /** No hold is due before this {@link System#nanoTime()}, so a sweep before it finds nothing to do. */
    private final AtomicLong nextDue = new AtomicLong(farAhead());

    private Session current;
    private CompletableFuture<Session> granting;
    private boolean closed;

    SessionLease(Client client, EtcdRequests requests, Housekeeper housekeeper, Duration leaseTime) {
        this.client = client;
        this.requests = requests;
        this.housekeeper = housekeeper;
        this.ttlSeconds = ttlSeconds(leaseTime.plus(leaseTime.dividedBy(3)));
        long margin = TimeUnit.SECONDS.toNanos(ttlSeconds) - leaseTime.toNanos();
        housekeeper.every(this::keepAlive, Math.max(TimeUnit.MILLISECONDS.toNanos(100), margin / 2));
        // Fixed leases end on the server within a tenth of the lease time (at most 250 ms) of their end here.
        long sweepPeriod = Math.min(TimeUnit.MILLISECONDS.toNanos(250), leaseTime.toNanos() / 10);
        housekeeper.every(this::sweep, Math.max(TimeUnit.MILLISECONDS.toNanos(25), sweepPeriod));
        // Granted ahead, so that the first acquisition is one request too; a failure here is retried by it.
        try {
            currentOrGrant();
        } catch (RuntimeException e) {
            log.debug("Could not ask etcd for a session lease yet; the first acquisition will", e);
        }
    }

    /** etcd counts whole seconds; rounding up keeps the server's lease at least as long as asked. */
    static long ttlSeconds(Duration lease) {
        return Math.max(1, lease.getSeconds() + (lease.getNano() > 0 ? 1 : 0));
    }

    /** The live session lease, granted first when there is none; the wait ends by {@code cutoff}. */
    Session get(long cutoff, String key) throws InterruptedException {
        Session session = current;
        if (session != null && session.isAlive()) {
            return session;
        }
        return requests.await(this::currentOrGrant, requests.timeoutBefore(cutoff), key, "Granting a session lease");
    }

    private synchronized CompletableFuture<Session> currentOrGrant() {
        if (current != null && current.isAlive()) {
            return CompletableFuture.completedFuture(current);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the registry is closed"));
        }
        if (granting == null || granting.isCompletedExceptionally()) {
            long sentAt = System.nanoTime();
            granting = client.getLeaseClient().grant(ttlSeconds).thenApply(granted -> {
                Session session = new Session(granted.getID(), sentAt + TimeUnit.SECONDS.toNanos(granted.getTTL()));
                adopt(session);
                return session;
            });
        }
        return granting;
    }

    private synchronized void adopt(Session session) {
        if (closed) {
            revoke(session, 0);
            throw new IllegalStateException("the registry closed while its session lease was granted");
        }
        current = session;
        granting = null;
    }

    /**
     * Starts counting {@code lease}'s own lease time: unless renewed, its entry is deleted at {@code
     * dueNanos}. When the session lease is lost, {@code listener} (the granting backend's) hears of it.
     */
    void track(EtcdLease lease, long dueNanos, Runnable deleteEntry, LeaseListener listener) {
        holds.put(lease, new Tracked(dueNanos, deleteEntry, listener));
        nextDue.accumulateAndGet(dueNanos, SessionLease::earlier);
    }

    boolean isTracked(EtcdLease lease) {
        return holds.containsKey(lease);
    }

    /** Stops tracking {@code lease} (released); false when it was no longer tracked (swept or lost). */
    boolean untrack(EtcdLease lease) {
        return holds.remove(lease) != null;
    }

    /**
     * Moves the hold's due time to {@code leaseTime} from now, after one keep-alive when the
     * session lease is not already confirmed that far (one request for all holds renewed at the
     * time). A hold is never valid past its session lease anyway ({@link Session#isAlive()}).
     */
    boolean renew(EtcdLease lease, Duration leaseTime, long timeoutNanos) throws InterruptedException {
        Session session = lease.session();
        Tracked tracked = holds.get(lease);
        if (tracked == null || session.ended) {
            return false;
        }
        long now = System.nanoTime();
        if (session.confirmedUntil - now < leaseTime.toNanos()) {
            long ttl = requests.await(() -> keepAlive(session), timeoutNanos, lease.key(), "Renewing the session lease")
                    .getTTL();
            if (ttl <= 0) {
                end(session, "etcd no longer had the registry's session lease");
                return false;
            }
        }
        long due = now + leaseTime.toNanos();
        if (due - tracked.dueNanos > 0) {
            tracked.dueNanos = due;
        }
        return !session.ended && holds.containsKey(lease);
    }

    /** Deletes the entries of holds past their due time (not renewed: a fixed lease ran out, or the engine gave up). */
    private void sweep() {
        long now = System.nanoTime();
        if (nextDue.get() - now > 0) {
            return;
        }
        nextDue.set(farAhead());
        holds.forEach((lease, tracked) -> {
            long due = tracked.dueNanos;
            if (due - now > 0) {
                nextDue.accumulateAndGet(due, SessionLease::earlier);
            } else if (holds.remove(lease, tracked)) {
                tracked.deleteEntry.run();
            }
        });
    }

    private static long earlier(long a, long b) {
        return a - b < 0 ? a : b;
    }

    private static long farAhead() {
        return System.nanoTime() + TimeUnit.DAYS.toNanos(365);
    }

    /** One keep-alive of the current session: the periodic one, or one a renewal asked for. */
    private void keepAlive() {
        Session session = current;
        if (session == null || session.ended) {
            return;
        }
        if (!session.isAlive()) {
            end(session, "its session lease could not be renewed in time (etcd unreachable?)");
            return;
        }
        keepAlive(session).whenComplete((response, failure) -> {
            if (failure == null ? response.getTTL() <= 0 : EtcdRequests.isLeaseNotFound(failure)) {
                end(session, "etcd no longer had the registry's session lease");
            } else if (failure != null) {
                log.debug("Keep-alive of the session lease {} failed; retrying", Long.toHexString(session.id), failure);
            }
        });
    }

    private CompletableFuture<LeaseKeepAliveResponse> keepAlive(Session session) {
        synchronized (session) {
            if (session.keepAlive == null || session.keepAlive.isDone()) {
                long sentAt = System.nanoTime();
                session.keepAlive = client.getLeaseClient()
                        .keepAliveOnce(session.id)
                        .orTimeout(requests.timeout(), TimeUnit.NANOSECONDS)
                        .whenComplete((response, failure) -> {
                            if (failure == null && response.getTTL() > 0) {
                                session.confirm(sentAt, response.getTTL());
                            }
                        });
            }
            return session.keepAlive;
        }
    }

    /** Retires {@code session}: its holds are lost, later acquisitions get a new one, and it is revoked in case etcd still has it. */
    void end(Session session, String reason) {
        synchronized (this) {
            if (session.ended) {
                return;
            }
            session.ended = true;
            if (current == session) {
                current = null;
            }
        }
        holds.forEach((lease, tracked) -> {
            if (lease.session() == session && holds.remove(lease, tracked)) {
                tracked.listener.leaseLost(lease, reason);
            }
        });
        revoke(session, 0);
    }

    private void revoke(Session session, long waitNanos) {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(ttlSeconds * 2);
        housekeeper.finish(
                "Revoking session lease " + Long.toHexString(session.id),
                () -> client.getLeaseClient().revoke(session.id),
                waitNanos,
                () -> System.nanoTime() - giveUpAt < 0);
    }

    /** Revokes the session lease, which deletes whatever is still queued under it. */
    @Override
    public void close() {
        Session session;
        synchronized (this) {
            closed = true;
            session = current;
            current = null;
        }
        if (session != null) {
            session.ended = true;
            revoke(session, requests.timeout());
        }
    }

    /** One granted session lease. */
    static final class Session {
        final long id;
        /** {@link System#nanoTime()} until which etcd surely keeps the lease. */
        volatile long confirmedUntil;

        volatile boolean ended;
        private CompletableFuture<LeaseKeepAliveResponse> keepAlive;

        Session(long id, long confirmedUntil) {
            this.id = id;
            this.confirmedUntil = confirmedUntil;
        }

        synchronized void confirm(long sentAt, long ttlSeconds) {
            long until = sentAt + TimeUnit.SECONDS.toNanos(ttlSeconds);
            if (until - confirmedUntil > 0) {
                confirmedUntil = until;
            }
        }

        boolean isAlive() {
            return !ended && confirmedUntil - System.nanoTime() > 0;
        }
    }

    /** A hold's due time (its own lease end), how to delete its entry, and whom to tell when it is lost. */
    private static final class Tracked {
        volatile long dueNanos;
        final Runnable deleteEntry;
        final LeaseListener listener;

        Tracked(long dueNanos, Runnable deleteEntry, LeaseListener listener) {
            this.dueNanos = dueNanos;
            this.deleteEntry = deleteEntry;
            this.listener = listener;
        }
    }
}
