package dev.distlock.etcd;

import dev.distlock.core.spi.LeaseListener;
import dev.distlock.etcd.TrackedHolds.Tracked;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's session lease, which every queue entry of the registry is attached to, and the
 * holds on it. A lost session lease loses its holds and is replaced for later acquisitions (see
 * docs/internals/backends.md, "etcd session lease").
 */
final class Sessions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Sessions.class);

    private static final long SHORTEST_TTL_SECONDS = 2;

    private final Client client;
    private final LockQueues queues;
    private final EtcdRequests requests;
    private final Housekeeper housekeeper;
    private final long ttlSeconds;
    private final TrackedHolds holds;

    private Session current;
    private CompletableFuture<Session> granting;
    private boolean closed;

    Sessions(Client client, LockQueues queues, EtcdRequests requests, Housekeeper housekeeper, Duration leaseTime) {
        this.client = client;
        this.queues = queues;
        this.requests = requests;
        this.housekeeper = housekeeper;
        this.holds = new TrackedHolds(queues, requests);
        // etcd's shortest lease with its default election timeout.
        this.ttlSeconds = Math.max(SHORTEST_TTL_SECONDS, ttlSeconds(leaseTime));
        long shortest = TimeUnit.MILLISECONDS.toNanos(100);
        housekeeper.every(this::keepAlive, Math.max(shortest, TimeUnit.SECONDS.toNanos(ttlSeconds) / 6));
        // As often as a watchdog renews.
        housekeeper.every(holds::checkEntries, Math.max(shortest, leaseTime.toNanos() / 3));
        long sweepPeriod = Math.min(TimeUnit.MILLISECONDS.toNanos(250), leaseTime.toNanos() / 10);
        housekeeper.every(holds::sweep, Math.max(TimeUnit.MILLISECONDS.toNanos(25), sweepPeriod));
        // Granted ahead, so that the first acquisition is one request too.
        try {
            currentOrGrant();
        } catch (RuntimeException e) {
            log.debug("Could not ask etcd for a session lease yet; the first acquisition will", e);
        }
    }

    /** The lease in whole seconds, rounded up, as etcd counts them. */
    static long ttlSeconds(Duration lease) {
        return Math.max(1, lease.getSeconds() + (lease.getNano() > 0 ? 1 : 0));
    }

    /** The live session lease, granted first when there is none. The wait ends by {@code cutoff}. */
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
            revoke(session.id, 0);
            throw new IllegalStateException("the registry closed while its session lease was granted");
        }
        current = session;
        granting = null;
    }

    /**
     * Starts counting {@code lease}'s own lease time. Unless renewed, its entry is deleted at {@code
     * dueNanos}, and {@code listener} hears when the session lease is lost.
     */
    void track(EtcdLease lease, Duration leaseTime, long dueNanos, Runnable deleteEntry, LeaseListener listener) {
        holds.track(lease, leaseTime, dueNanos, deleteEntry, listener);
    }

    boolean isTracked(EtcdLease lease) {
        return holds.contains(lease);
    }

    /** Stops tracking {@code lease}. False when it was no longer tracked (swept or lost). */
    boolean untrack(EtcdLease lease) {
        return holds.remove(lease);
    }

    /**
     * Moves the hold's due time to {@code leaseTime} from now. Any end other than the hold's own
     * lease time moves the entry onto a lease of its own when the session lease does not cover it.
     */
    boolean renew(EtcdLease lease, Duration leaseTime, long timeoutNanos) throws InterruptedException {
        Session session = lease.session();
        Tracked tracked = holds.get(lease);
        if (tracked == null || session.ended) {
            return false;
        }
        long now = System.nanoTime();
        long end = now + leaseTime.toNanos();
        boolean endSet = !leaseTime.equals(tracked.leaseTime) || tracked.onOwnLease;
        if (endSet && end - coveredUntil(session, tracked) > 0) {
            if (!moveToOwnLease(lease, tracked, leaseTime, timeoutNanos)) {
                return false;
            }
        } else if (!session.isAlive()) {
            long ttl = requests.await(() -> keepAlive(session), timeoutNanos, lease.key(), "Renewing the session lease")
                    .getTTL();
            if (ttl <= 0) {
                end(session, "etcd no longer had the registry's session lease");
                return false;
            }
        }
        holds.due(tracked, end);
        return !session.ended && holds.contains(lease);
    }

    /** Until when etcd surely keeps the hold's entry, whatever becomes of this process. */
    private static long coveredUntil(Session session, Tracked tracked) {
        return tracked.onOwnLease ? tracked.ownLeaseUntil : session.confirmedUntil;
    }

    /**
     * Puts the hold's entry, unchanged, on a new lease that ends {@code leaseTime} from now. False
     * when the entry is gone. An earlier lease of its own expires with nothing on it.
     */
    private boolean moveToOwnLease(EtcdLease lease, Tracked tracked, Duration leaseTime, long timeoutNanos)
            throws InterruptedException {
        long sentAt = System.nanoTime();
        long ttl = ttlSeconds(leaseTime);
        long own = requests.await(
                        () -> client.getLeaseClient().grant(ttl),
                        timeoutNanos,
                        lease.key(),
                        "Granting the entry a lease of its own")
                .getID();
        boolean moved = requests.await(
                        () -> queues.moveToLease(lease.entry(), lease.value(), own),
                        Math.max(0, timeoutNanos - (System.nanoTime() - sentAt)),
                        lease.key(),
                        "Moving the entry onto its own lease")
                .isSucceeded();
        if (!moved) {
            revoke(own, 0);
            return false;
        }
        tracked.ownLeaseUntil = sentAt + TimeUnit.SECONDS.toNanos(ttl);
        tracked.onOwnLease = true;
        return true;
    }

    /** One periodic keep-alive of the current session lease. */
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
        return session.keepAliveOnce(client, requests.timeout());
    }

    /** Retires {@code session}. Its holds are lost, and it is revoked in case etcd still has it. */
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
        holds.loseAll(session, reason);
        revoke(session.id, 0);
    }

    private void revoke(long leaseId, long waitNanos) {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(ttlSeconds * 2);
        housekeeper.finish(
                "Revoking lease " + Long.toHexString(leaseId),
                () -> client.getLeaseClient().revoke(leaseId),
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
            keepLingeringEntries(session);
            session.ended = true;
            revoke(session.id, requests.timeout());
        }
    }

    /** Moves entries kept for a later end (a released minimum hold) onto leases of their own, as a crash would keep them. */
    private void keepLingeringEntries(Session session) {
        long now = System.nanoTime();
        holds.forEach((lease, tracked) -> {
            long left = tracked.dueNanos - now;
            if (lease.session() != session || tracked.onOwnLease || left <= 0) {
                return;
            }
            try {
                moveToOwnLease(lease, tracked, Duration.ofNanos(left), requests.timeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn(
                        "Lock '{}' on etcd: could not keep its entry for the {} ms left of its minimum hold"
                                + " after the registry closed; it goes with the session lease: {}",
                        lease.key(),
                        TimeUnit.NANOSECONDS.toMillis(left),
                        e.toString());
            }
        });
    }
}
