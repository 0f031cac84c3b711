package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis server or Cluster: one script round trip to acquire and one to release
 * when uncontended; waiters sleep until a release message or the holder's remaining lease,
 * whichever comes first, so a lost message only delays them.
 */
final class RedisLockBackend implements LockBackend<RedisLease> {

    private static final Logger log = LoggerFactory.getLogger(RedisLockBackend.class);
    static final int MAX_KEY_LENGTH = 1000;
    private static final byte[] WAIT = bytes("1");
    private static final byte[] NO_WAIT = bytes("0");
    private static final byte[] CHANNEL = bytes(RedisKeys.RELEASE_CHANNEL);
    /** A call whose deadline is (almost) up still gets this long for its answer. */
    private static final long MIN_CALL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final RedisNode node;
    private final ReleaseSubscriber subscriber;
    private final Duration commandTimeout;

    RedisLockBackend(RedisNode node, ReleaseSubscriber subscriber, Duration commandTimeout) {
        this.node = node;
        this.subscriber = subscriber;
        this.commandTimeout = commandTimeout;
        node.onConnectionEvent(subscriber::wakeAll);
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String address() {
        return node.address();
    }

    @Override
    public int maxKeyLength() {
        return MAX_KEY_LENGTH;
    }

    @Override
    public Optional<RedisLease> tryAcquire(LockRequest request) throws InterruptedException {
        RedisKeys keys = RedisKeys.of(request.key());
        Deadline deadline = request.deadline();
        boolean mayWait = !deadline.hasPassed();
        AcquireReply reply = acquireOnce(request, keys, mayWait, deadline);
        if (reply.granted()) {
            return Optional.of(lease(request, keys, reply));
        }
        if (!mayWait || deadline.hasPassed()) {
            return Optional.empty();
        }
        awaitSubscription(deadline);
        ReleaseSubscriber.Wakeup wakeup = subscriber.register(keys.lock());
        long waitingSince = System.nanoTime();
        try {
            while (true) {
                // Registered before this attempt, so a release after it cannot go unnoticed.
                reply = acquireOnce(request, keys, true, deadline);
                if (reply.granted()) {
                    return Optional.of(lease(request, keys, reply));
                }
                long holderLeft = TimeUnit.MILLISECONDS.toNanos(Math.max(1, reply.holderLeaseMillis()));
                long slice = Math.min(deadline.remainingNanos(), holderLeft);
                boolean woken = slice > 0 && wakeup.await(slice);
                if (!node.isCluster()) {
                    node.failIfReconnectFailedSince(waitingSince, request.key());
                }
                if (!woken && deadline.hasPassed()) {
                    return Optional.empty();
                }
            }
        } finally {
            subscriber.unregister(keys.lock(), wakeup);
        }
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

    private AcquireReply acquireOnce(LockRequest request, RedisKeys keys, boolean willWait, Deadline deadline)
            throws InterruptedException {
        Duration timeout = callTimeout(deadline);
        List<byte[]> args = List.of(
                bytes(request.owner().value()),
                bytes(Long.toString(leaseMillis(request.leaseTime()))),
                willWait ? WAIT : NO_WAIT);
        RedisNode.Call call =
                node.start(LockScripts.ACQUIRE, request.key(), List.of(keys.lockBytes(), keys.fenceBytes()), args);
        Object answer;
        try {
            answer = call.await(timeout);
        } catch (RuntimeException e) {
            // The script may have run with the answer lost: free what it may have taken for this owner.
            node.start(
                    LockScripts.RELEASE,
                    request.key(),
                    List.of(keys.lockBytes()),
                    releaseArgs(request.owner().value(), keys));
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + node.address());
            }
            throw e;
        }
        return AcquireReply.parse(answer, call.sentAtNanos());
    }

    private Duration callTimeout(Deadline deadline) {
        long limit = commandTimeout.toNanos();
        return Duration.ofNanos(Math.max(Math.min(limit, deadline.remainingNanos()), Math.min(limit, MIN_CALL_NANOS)));
    }

    @Override
    public boolean renew(RedisLease lease, Duration leaseTime) {
        Object answer = node.run(
                LockScripts.RENEW,
                lease.key(),
                List.of(lease.keys().lockBytes()),
                List.of(bytes(lease.owner()), bytes(Long.toString(leaseMillis(leaseTime)))),
                commandTimeout);
        return Long.valueOf(1).equals(answer);
    }

    @Override
    public boolean release(RedisLease lease) {
        Object answer = node.run(
                LockScripts.RELEASE,
                lease.key(),
                List.of(lease.keys().lockBytes()),
                releaseArgs(lease.owner(), lease.keys()),
                commandTimeout);
        boolean released = Long.valueOf(1).equals(answer);
        if (!released) {
            log.debug("Lock '{}' was no longer held by {} at release", lease.key(), lease.owner());
        }
        return released;
    }

    @Override
    public void close() {
        subscriber.close();
        node.close();
    }

    private static RedisLease lease(LockRequest request, RedisKeys keys, AcquireReply reply) {
        return new RedisLease(
                request.key(), keys, request.owner().value(), FencingToken.of(reply.token()), reply.sentAtNanos());
    }

    static List<byte[]> releaseArgs(String owner, RedisKeys keys) {
        return List.of(bytes(owner), CHANNEL, keys.lockBytes());
    }

    static long leaseMillis(Duration leaseTime) {
        return Math.max(1, leaseTime.toMillis());
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
