package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.LockScripts.AcquireReply;
import dev.distlock.redis.LockScripts.StoredHolder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis server or Cluster: one script round trip to acquire and one to release
 * when uncontended; waiters sleep until a release message, the holder's remaining lease or
 * {@link #RECHECK}, whichever comes first, so a lost message only delays them a little. Waits
 * ride out transient failures ({@link RideOut}). No call outlives the caller's deadline by more
 * than {@link #SLACK}.
 */
final class RedisLockBackend implements LockBackend<RedisLease> {

    private static final Logger log = LoggerFactory.getLogger(RedisLockBackend.class);
    static final int MAX_KEY_LENGTH = 1000;

    /**
     * How long past the caller's deadline a call may still wait for its answer, so that a
     * zero-wait attempt gets one round trip. Part of the documented overrun (contract 8).
     */
    static final Duration SLACK = Duration.ofMillis(200);

    /**
     * The longest a waiter sleeps without looking at the key again: a release message that never
     * arrives costs it at most this, not its whole wait.
     */
    static final Duration RECHECK = Duration.ofMillis(250);

    private final RedisEndpoint endpoint;
    private final ReleaseSubscriber subscriber;
    private final Duration commandTimeout;
    private final long recheckNanos;
    private final ReplicaAcknowledgements replicas;

    RedisLockBackend(RedisEndpoint endpoint, ReleaseSubscriber subscriber, Duration commandTimeout) {
        this(endpoint, subscriber, commandTimeout, RECHECK, ReplicaAcknowledgements.NONE);
    }

    RedisLockBackend(
            RedisEndpoint endpoint,
            ReleaseSubscriber subscriber,
            Duration commandTimeout,
            Duration recheck,
            ReplicaAcknowledgements replicas) {
        this.endpoint = endpoint;
        this.subscriber = subscriber;
        this.commandTimeout = commandTimeout;
        this.recheckNanos = recheck.toNanos();
        this.replicas = replicas;
        endpoint.onConnectionEvent(subscriber::wakeAll);
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String address() {
        return endpoint.address();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    @Override
    public Optional<RedisLease> tryAcquire(LockRequest request) throws InterruptedException {
        LockKey key = LockKey.of(request.key());
        byte[] owner = LockScripts.ownerBytes(request.owner());
        byte[] holder = LockScripts.holderBytes(request.holder());
        Deadline deadline = request.deadline();
        boolean mayWait = !deadline.hasPassed();
        Attempt attempt;
        try {
            attempt = acquireOnce(request, key, owner, holder, mayWait, true);
            if (attempt.reply().granted()) {
                return Optional.of(granted(attempt, key, owner, deadline));
            }
        } catch (LockBackendException e) {
            if (!mayWait) {
                // The script may have run with the answer lost: free what it may have taken. Not
                // waited for: the caller's deadline does not cover a clean-up round trip.
                endpoint.send(LockScripts.release(key, owner));
                throw e;
            }
            return await(request, key, owner, holder, e);
        }
        if (!mayWait || deadline.hasPassed()) {
            return Optional.empty();
        }
        return await(request, key, owner, holder, null);
    }

    /**
     * Waits for the key after a first attempt found it held (or failed with {@code firstFailure}):
     * woken by a release message, else looking again when the holder's lease ends or after
     * {@link #RECHECK}, whichever comes first, so a lost message costs a re-check, not the wait.
     * Transient failures are ridden out until the deadline ({@link RideOut}).
     */
    private Optional<RedisLease> await(
            LockRequest request, LockKey key, byte[] owner, byte[] holder, LockBackendException firstFailure)
            throws InterruptedException {
        Deadline deadline = request.deadline();
        RideOut rideOut = new RideOut(endpoint.address(), request.key());
        ReleaseSubscriber.Wakeup<AcquireReply> wakeup = subscriber.register(key.name());
        boolean granted = false;
        try {
            if (firstFailure != null) {
                rideOut.failed(firstFailure, deadline);
            }
            awaitSubscription(deadline);
            if (endpoint.sendsWithoutBlocking()) {
                // A release message sends the next attempt at once, from the thread that receives it.
                wakeup.retryWith(() -> sendAttempt(request, key, owner, holder, true, false));
            }
            PendingReply<AcquireReply> sent = null;
            while (true) {
                Attempt attempt;
                try {
                    // Registered before this attempt, so a release after it cannot go unnoticed.
                    attempt = sent != null
                            ? awaitAttempt(sent, request)
                            : acquireOnce(request, key, owner, holder, true, false);
                    if (attempt.reply().granted()) {
                        RedisLease lease = granted(attempt, key, owner, deadline);
                        granted = true;
                        return Optional.of(lease);
                    }
                } catch (LockBackendException e) {
                    sent = null;
                    rideOut.failed(e, deadline); // returns after a back-off, or throws when the wait is over
                    subscriber.ensureListening(); // the subscription may have failed while Redis was away
                    continue;
                }
                rideOut.answered();
                long holderLeft = attempt.reply().holderLeaseMillis() < 0
                        ? recheckNanos
                        : TimeUnit.MILLISECONDS.toNanos(
                                Math.max(1, attempt.reply().holderLeaseMillis()));
                long slice = Math.min(deadline.remainingNanos(), Math.min(holderLeft, recheckNanos));
                boolean woken = slice > 0 && wakeup.await(slice);
                if (!woken && deadline.hasPassed()) {
                    return Optional.empty();
                }
                sent = wakeup.takeSent();
            }
        } finally {
            subscriber.unregister(key.name(), wakeup);
            if ((wakeup.close() != null || rideOut.failedBefore()) && !granted) {
                // An attempt that this waiter does not use, or whose answer was lost, may still
                // take the key: the release goes after it on the same connection and frees it.
                endpoint.send(LockScripts.release(key, owner));
            }
        }
    }

    /**
     * The lease of a granted attempt, once as many replicas as configured have acknowledged it;
     * a grant they did not acknowledge in time is released and reported as a transient failure.
     */
    private RedisLease granted(Attempt attempt, LockKey key, byte[] owner, Deadline deadline)
            throws InterruptedException {
        RedisLease lease = attempt.lease(key, owner);
        if (replicas.count() == 0) {
            return lease;
        }
        long timeoutMillis = Math.max(
                1, Math.min(replicas.timeout().toMillis(), callTimeout(deadline).toMillis()));
        long acknowledged = endpoint.waitForReplicas(replicas.count(), timeoutMillis, key.key());
        if (acknowledged >= replicas.count()) {
            return lease;
        }
        // Not waited for: a retry goes after it on the same connection, and the deadline does
        // not cover another round trip.
        endpoint.send(LockScripts.release(key, owner));
        throw endpoint.unreachable(
                key.key(),
                "granted, but " + acknowledged + " of " + replicas.count() + " replicas acknowledged it within "
                        + timeoutMillis + " ms (a failover could lose it), so it was released",
                null);
    }

    /** Gives the first subscription a moment to be confirmed; without it waits only end at the holder's lease. */
    private void awaitSubscription(Deadline deadline) throws InterruptedException {
        long limit = Math.min(deadline.remainingNanos(), commandTimeout.toNanos());
        try {
            subscriber.ensureListening().get(limit, TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.debug("Release subscription not confirmed; waiting with capped waits only", e);
        }
    }

    private Attempt acquireOnce(
            LockRequest request, LockKey key, byte[] owner, byte[] holder, boolean willWait, boolean first)
            throws InterruptedException {
        return awaitAttempt(sendAttempt(request, key, owner, holder, willWait, first), request);
    }

    /**
     * One acquisition script. The {@code first} may go out in a batch with other threads' calls
     * ({@link RedisEndpoint#sendBatched}); later ones, sent because the key was released, go at once.
     */
    private PendingReply<AcquireReply> sendAttempt(
            LockRequest request, LockKey key, byte[] owner, byte[] holder, boolean willWait, boolean first) {
        ScriptCall<AcquireReply> call = LockScripts.acquire(key, owner, request.leaseTime(), willWait, holder);
        return first ? endpoint.sendBatched(call) : endpoint.send(call);
    }

    /** The attempt's answer; a {@link LockBackendException} when none came (the script may still have run). */
    private Attempt awaitAttempt(PendingReply<AcquireReply> pending, LockRequest request) throws InterruptedException {
        try {
            return new Attempt(pending.await(callTimeout(request.deadline())), pending.sentAtNanos());
        } catch (LockBackendException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + endpoint.address());
            }
            throw e;
        }
    }

    /** The command timeout, cut to the deadline plus {@link #SLACK}. */
    private Duration callTimeout(Deadline deadline) {
        long limit = Math.min(commandTimeout.toNanos(), deadline.remainingNanos() + SLACK.toNanos());
        return Duration.ofNanos(limit);
    }

    @Override
    public boolean renew(RedisLease lease, Duration leaseTime) {
        return endpoint.send(LockScripts.renew(lease.lockKey(), lease.owner(), leaseTime))
                .await(commandTimeout);
    }

    @Override
    public boolean release(RedisLease lease) {
        // May wait for replies in flight (at most one round trip or 2 ms): a waiter in another
        // process learns of it that much later, and many threads releasing at once share writes.
        boolean released = endpoint.sendBatched(LockScripts.release(lease.lockKey(), lease.owner()))
                .await(commandTimeout);
        if (!released) {
            log.debug("Lock '{}' was no longer held by its owner at release", lease.key());
        }
        return released;
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        StoredHolder stored = endpoint.send(LockScripts.holder(LockKey.of(key))).await(commandTimeout);
        return stored.held() ? Optional.of(toLockHolder(key, stored)) : Optional.empty();
    }

    @Override
    public boolean forceRelease(String key) {
        return endpoint.send(LockScripts.evict(LockKey.of(key))).await(commandTimeout);
    }

    @Override
    public void verify(Duration timeout) {
        endpoint.verify(timeout);
    }

    @Override
    public void close() {
        subscriber.close();
        endpoint.close();
    }

    static LockHolder toLockHolder(String key, StoredHolder stored) {
        Optional<Duration> left = stored.leaseLeftMillis() >= 0
                ? Optional.of(Duration.ofMillis(stored.leaseLeftMillis()))
                : Optional.empty();
        return new LockHolder(key, stored.holder(), FencingToken.of(stored.token()), left);
    }

    /** One acquire script's reply and when it was sent. */
    private record Attempt(AcquireReply reply, long sentAtNanos) {

        RedisLease lease(LockKey key, byte[] owner) {
            return new RedisLease(key, owner, FencingToken.of(reply.token()), sentAtNanos);
        }
    }
}
