package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.LockScripts.AcquireReply;
import dev.distlock.redis.LockScripts.StoredHolder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis server or Cluster, with one script round trip to acquire and one to release when uncontended.
 * {@link KeyWait} runs the wait, shared with read/write locks. This class says what an attempt sends and what its
 * answer means.
 */
final class RedisLockBackend implements LockBackend<RedisLease> {

    private static final Logger log = LoggerFactory.getLogger(RedisLockBackend.class);
    static final int MAX_KEY_LENGTH = 1000;

    /**
     * The longest a waiter sleeps without looking at the key again. A release message that never arrives costs it at
     * most this, not its whole wait.
     */
    static final Duration RECHECK = Duration.ofMillis(250);

    private final RedisEndpoint endpoint;
    private final ReleaseSubscriber subscriber;
    private final KeyWait wait;
    private final Duration commandTimeout;
    private final long recheckNanos;
    /** This registry's place in queues, its wake-up channel, kept for several re-checks after each attempt. */
    private final LockScripts.WaitQueue waitQueue;

    private final ReplicaAcknowledgements replicas;

    RedisLockBackend(RedisEndpoint endpoint, ReleaseSubscriber subscriber, CallLimits limits) {
        this(endpoint, subscriber, limits, RECHECK, ReplicaAcknowledgements.NONE);
    }

    RedisLockBackend(
            RedisEndpoint endpoint,
            ReleaseSubscriber subscriber,
            CallLimits limits,
            Duration recheck,
            ReplicaAcknowledgements replicas) {
        this.endpoint = endpoint;
        this.subscriber = subscriber;
        this.wait = new KeyWait(endpoint, subscriber, limits);
        this.commandTimeout = limits.commandTimeout();
        this.recheckNanos = recheck.toNanos();
        this.waitQueue = subscriber.waitQueue(queuePlace(recheck));
        this.replicas = replicas;
        endpoint.onConnectionEvent(subscriber::wakeAll);
        subscriber.onUnclaimed(this::passOnWakeUp);
    }

    /**
     * Passes on a wake-up that no waiter of this registry claimed. Only a plain lock's queue hands a wake-up to one
     * registry. A read/write release wakes every registry in its queue.
     */
    private void passOnWakeUp(String lock) {
        if (LockKey.isPlainLock(lock)) {
            endpoint.send(LockScripts.pass(LockKey.ofRedisKey(lock), waitQueue));
        }
    }

    /**
     * How long a registry's place in a key's queue lasts after its last attempt. Four re-checks and at least a second,
     * so a live waiter, which attempts at least once per re-check, never loses it.
     */
    static Duration queuePlace(Duration recheck) {
        Duration several = recheck.multipliedBy(4);
        return several.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : several;
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
        return wait.acquire(request, new PlainAttempts(request));
    }

    /** Attempts on a plain lock's key with {@code acquire.lua}, withdrawn by {@code release.lua}. */
    private final class PlainAttempts implements KeyWait.Attempts<RedisLease> {

        private final LockRequest request;
        private final LockKey key;
        private final byte[] owner;
        private final byte[] holder;
        /** Set once an attempt of this request took a place in the key's queue. */
        private boolean joinedQueue;

        PlainAttempts(LockRequest request) {
            this.request = request;
            this.key = LockKey.of(request.key());
            this.owner = LockScripts.ownerBytes(request.owner());
            this.holder = LockScripts.bytes(request.holder());
        }

        @Override
        public String releaseMessage() {
            return key.name();
        }

        /**
         * A waiting attempt takes a place in the key's queue once this registry listens on its wake-up channel. Until
         * then, or when it cannot subscribe, it waits for {@code distlock:released}.
         */
        @Override
        public ScriptCall<AcquireReply> acquire(boolean willWait) {
            if (request.guardKey() != null) {
                return LockScripts.acquireUnlessHeld(
                        key, LockKey.of(request.guardKey()), owner, request.leaseTime(), holder);
            }
            if (!willWait) {
                return LockScripts.acquire(key, owner, request.leaseTime(), holder);
            }
            LockScripts.WaitQueue queue = subscriber.placeFor(true, waitQueue);
            joinedQueue |= queue != LockScripts.WaitQueue.NONE;
            return LockScripts.acquireToWait(key, owner, request.leaseTime(), holder, queue);
        }

        /** Leaves the key's queue, passing on a wake-up this registry may have been sent meanwhile. */
        @Override
        public void stoppedWaiting() {
            if (joinedQueue) {
                endpoint.send(LockScripts.pass(key, waitQueue));
            }
        }

        @Override
        public RedisLease granted(AcquireReply reply, long sentAtNanos) throws InterruptedException {
            return acknowledged(new RedisLease(key, owner, FencingToken.of(reply.token()), sentAtNanos), request);
        }

        /** Until the holder's lease ends, or {@link #RECHECK} when it has no expiry, whichever is sooner. */
        @Override
        public long recheckNanos(AcquireReply refused) {
            return refused.holderLeaseMillis() < 0
                    ? recheckNanos
                    : Math.min(recheckNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(1, refused.holderLeaseMillis())));
        }

        @Override
        public ScriptCall<Boolean> withdraw() {
            return LockScripts.release(key, owner);
        }

        @Override
        public boolean withdrawsAtOnce() {
            return false; // acquire.lua grants its own owner again, so one release at the end frees all
        }

        @Override
        public boolean attemptsOnRelease() {
            return true;
        }
    }

    /**
     * {@code lease} once as many replicas as configured have acknowledged it. A grant they did not acknowledge in time
     * is released and reported as a transient failure.
     */
    private RedisLease acknowledged(RedisLease lease, LockRequest request) throws InterruptedException {
        if (replicas.count() == 0) {
            return lease;
        }
        long timeoutMillis = Math.max(
                1,
                Math.min(
                        replicas.timeout().toMillis(),
                        wait.callTimeout(request.deadline()).toMillis()));
        long acknowledged = endpoint.waitForReplicas(replicas.count(), timeoutMillis, lease.key());
        if (acknowledged >= replicas.count()) {
            return lease;
        }
        // Not waited for. A retry goes after it on the same connection, and the deadline does not cover another round
        // trip.
        endpoint.send(LockScripts.release(lease.lockKey(), lease.owner()));
        throw endpoint.unreachable(
                lease.key(),
                "granted, but " + acknowledged + " of " + replicas.count() + " replicas acknowledged it within "
                        + timeoutMillis + " ms (a failover could lose it), so it was released");
    }

    @Override
    public boolean renew(RedisLease lease, Duration leaseTime) {
        return endpoint.send(LockScripts.renew(lease.lockKey(), lease.owner(), leaseTime))
                .await(commandTimeout);
    }

    @Override
    public boolean release(RedisLease lease) {
        // May wait for replies in flight, at most one round trip or 2 ms, so that many threads releasing at once share
        // writes.
        boolean released = endpoint.sendBatched(LockScripts.release(lease.lockKey(), lease.owner()))
                .awaitUninterruptibly(commandTimeout);
        if (!released) {
            log.debug("Lock '{}' was no longer held by its owner at release", lease.key());
        }
        return released;
    }

    @Override
    public Optional<LockHolder> holderOf(String key) {
        return holderOfLater(key).get();
    }

    /** Sends the read now, on the connection every take of this registry uses. {@code get()} waits for the answer. */
    @Override
    public java.util.function.Supplier<Optional<LockHolder>> holderOfLater(String key) {
        PendingReply<StoredHolder> reply = endpoint.send(LockScripts.holder(LockKey.of(key)));
        return () -> {
            StoredHolder stored = reply.await(commandTimeout);
            return stored.held() ? Optional.of(toLockHolder(key, stored)) : Optional.empty();
        };
    }

    /**
     * Whether one script can read both keys. Always on a single server, and on a Cluster when they share a hash slot.
     */
    @Override
    public boolean guardsTakes(String key, String guardKey) {
        return endpoint.runsTogether(
                LockKey.of(key).nameBytes(), LockKey.of(guardKey).nameBytes());
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
}
