package dev.distlock.redis;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.LockScripts.AcquireReply;
import dev.distlock.redis.LockScripts.StoredHolder;
import dev.distlock.redis.NodeReplies.Answer;
import dev.distlock.redis.NodeReplies.Tally;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Redlock over N independent Redis servers. A lock is held when a majority granted it within its lease. Its token, the
 * largest of the majority's, is written back to them so that any later majority issues a larger one (see
 * docs/internals/backends.md).
 */
final class RedlockBackend implements LockBackend<RedisLease> {

    static final Duration MAX_BACKOFF = Duration.ofMillis(100);
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final List<RedisEndpoint> nodes;
    private final int quorum;
    private final RedlockMajority majority;
    private final Duration nodeTimeout;
    private final Duration commandTimeout;
    private final String address;

    RedlockBackend(List<RedisEndpoint> nodes, Duration nodeTimeout, Duration commandTimeout) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.commandTimeout = commandTimeout;
        this.address = "redlock[" + nodes.stream().map(RedisEndpoint::address).collect(Collectors.joining(",")) + "]";
        this.majority = RedlockMajority.of(address, nodes.size());
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public int maxKeyLength() {
        return RedisLockBackend.MAX_KEY_LENGTH;
    }

    /** A lease with Redlock's clock-drift allowance, 1% plus 2 ms. */
    static Duration withDrift(Duration lease) {
        return lease.plus(lease.dividedBy(100)).plusMillis(2);
    }

    @Override
    public Optional<RedisLease> tryAcquire(LockRequest request) throws InterruptedException {
        LockKey key = LockKey.of(request.key());
        byte[] owner = LockScripts.ownerBytes(request.owner());
        byte[] holder = LockScripts.bytes(request.holder());
        Deadline deadline = request.deadline();
        long backoff = MIN_BACKOFF_NANOS;
        RideOut rideOut = new RideOut(address, request.key());
        while (true) {
            long start = System.nanoTime();
            // A round gets nodeTimeout, and never ends later than nodeTimeout after the deadline.
            long roundEnd = start + Math.min(nodeTimeout.toNanos(), deadline.remainingNanos() + nodeTimeout.toNanos());
            Tally<AcquireReply> round = acquireRound(request, key, owner, holder, roundEnd);
            Optional<RedisLease> lease = grantedLease(round, key, owner, roundEnd);
            if (lease.isPresent()) {
                return lease;
            }
            // Not granted. Free what the round took without waiting, as the deadline does not cover it.
            NodeReplies.send(nodes, node -> LockScripts.release(key, owner));
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + address);
            }
            // A majority out of reach is ridden out while the wait lasts. The round's takes were freed above, so no
            // retry holds twice (contract 8).
            if (majority.outOfReach(round, deadline)) {
                rideOut.failed(majority.unreachable(request.key(), round), deadline); // throws once the wait is over
                continue;
            }
            rideOut.answered();
            if (deadline.hasPassed()) {
                return Optional.empty();
            }
            backoff = pause(backoff, deadline);
        }
    }

    /** Asks every node for the key, until a majority granted or so many refused that none can. */
    private Tally<AcquireReply> acquireRound(
            LockRequest request, LockKey key, byte[] owner, byte[] holder, long roundEnd) {
        return NodeReplies.send(nodes, node -> LockScripts.acquire(key, owner, withDrift(request.leaseTime()), holder))
                .await(
                        untilNanos(roundEnd),
                        t -> t.count(AcquireReply::granted) >= quorum
                                || t.count(reply -> !reply.granted()) > nodes.size() - quorum);
    }

    /** Sleeps a jittered back-off within the wait. Returns the next back-off, doubled up to {@link #MAX_BACKOFF}. */
    private static long pause(long backoff, Deadline deadline) throws InterruptedException {
        long sleep =
                Math.min(deadline.remainingNanos(), ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1));
        TimeUnit.NANOSECONDS.sleep(sleep);
        return Math.min(backoff * 2, MAX_BACKOFF.toNanos());
    }

    /**
     * The lease when a majority granted and took the token back as their fence. Writing it back gets what is left of
     * the round, and at least a quarter of the node timeout.
     */
    private Optional<RedisLease> grantedLease(Tally<AcquireReply> round, LockKey key, byte[] owner, long roundEnd) {
        List<Answer<AcquireReply>> granted =
                round.answers().stream().filter(a -> a.value().granted()).toList();
        if (granted.size() < quorum) {
            return Optional.empty();
        }
        long token = granted.stream().mapToLong(a -> a.value().token()).max().orElseThrow();
        Tally<Boolean> raised = NodeReplies.send(
                        granted.stream().map(Answer::node).toList(), node -> LockScripts.raiseFence(key, token))
                .await(
                        untilNanos(Math.max(roundEnd, System.nanoTime() + nodeTimeout.toNanos() / 4)),
                        t -> t.count(Boolean::booleanValue) >= quorum);
        // No validity check. The lease counts from the earliest send of the granting nodes, so a grant slower than the
        // lease is invalid at once, never too long.
        if (raised.count(Boolean::booleanValue) >= quorum) {
            return Optional.of(new RedisLease(key, owner, FencingToken.of(token), earliestSend(granted)));
        }
        return Optional.empty();
    }

    /**
     * When the first of the granting nodes was sent its take, so no node's lease started earlier. A node still
     * connecting was sent it only once connected.
     */
    private static long earliestSend(List<Answer<AcquireReply>> granted) {
        return granted.stream()
                .mapToLong(Answer::sentAtNanos)
                .reduce((a, b) -> a - b < 0 ? a : b)
                .orElseThrow();
    }

    @Override
    public boolean renew(RedisLease lease, Duration leaseTime) {
        Tally<Boolean> tally = NodeReplies.send(
                        nodes, node -> LockScripts.renew(lease.lockKey(), lease.owner(), withDrift(leaseTime)))
                .await(commandTimeout, majority::decided);
        return majority.decide(tally, lease.key(), "renew");
    }

    @Override
    public boolean release(RedisLease lease) {
        Tally<Boolean> tally = NodeReplies.send(nodes, node -> LockScripts.release(lease.lockKey(), lease.owner()))
                .await(commandTimeout, majority::decided);
        return majority.decide(tally, lease.key(), "release");
    }

    /** The holder a majority of the nodes agrees on, with the hold's token and the shortest lease among them. */
    @Override
    public Optional<LockHolder> holderOf(String key) {
        LockKey lockKey = LockKey.of(key);
        Tally<StoredHolder> tally = NodeReplies.send(nodes, node -> LockScripts.holder(lockKey))
                .await(commandTimeout, t -> t.answers().size() >= nodes.size());
        majority.require(tally, key, "read the holder of");
        Map<String, List<StoredHolder>> byOwner = tally.answers().stream()
                .map(Answer::value)
                .filter(StoredHolder::held)
                .collect(Collectors.groupingBy(StoredHolder::owner));
        return byOwner.values().stream()
                .filter(agreeing -> agreeing.size() >= quorum)
                .findFirst()
                .map(agreeing -> RedisLockBackend.toLockHolder(
                        key,
                        new StoredHolder(
                                agreeing.get(0).owner(),
                                agreeing.get(0).holder(),
                                majority.token(agreeing),
                                agreeing.stream()
                                        .mapToLong(StoredHolder::leaseLeftMillis)
                                        .min()
                                        .orElseThrow())));
    }

    /** Ends the hold on every node that answers. True when any node had one. */
    @Override
    public boolean forceRelease(String key) {
        LockKey lockKey = LockKey.of(key);
        Tally<Boolean> tally = NodeReplies.send(nodes, node -> LockScripts.evict(lockKey))
                .await(commandTimeout, t -> t.pending() == 0);
        majority.require(tally, key, "force-release");
        return tally.count(Boolean::booleanValue) > 0;
    }

    @Override
    public void verify(Duration timeout) {
        List<String> failed = nodes.stream()
                .parallel()
                .map(node -> {
                    try {
                        node.verify(timeout);
                        return null;
                    } catch (LockBackendException e) {
                        return e.getMessage();
                    }
                })
                .filter(java.util.Objects::nonNull)
                .toList();
        if (failed.size() > nodes.size() - quorum) {
            throw new LockBackendException(
                    "redis",
                    address,
                    RedisErrors.NO_KEY,
                    failed.size() + " of " + nodes.size() + " Redlock nodes failed the check ("
                            + String.join("; ", failed) + "); locks need " + quorum
                            + ". Bring the nodes back or check the network.");
        }
    }

    private static Duration untilNanos(long end) {
        return Duration.ofNanos(Math.max(0, end - System.nanoTime()));
    }

    @Override
    public void close() {
        nodes.forEach(RedisEndpoint::close);
    }
}
