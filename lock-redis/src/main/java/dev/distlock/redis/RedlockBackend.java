package dev.distlock.redis;

import static dev.distlock.redis.RedisLockBackend.bytes;
import static dev.distlock.redis.RedisLockBackend.leaseMillis;
import static dev.distlock.redis.RedisLockBackend.releaseArgs;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Redlock over N independent Redis servers: a lock is held when a majority granted it within
 * its validity (lease − time spent acquiring − clock-drift allowance). Each node runs the same
 * scripts as a single server; the token is the largest of the majority's tokens, each of which
 * is already above that node's counter, and is written back to the majority, so any later
 * majority (which shares a node with this one) issues a larger one.
 *
 * <p>Waiters retry with a short capped, jittered back-off rather than holding a subscription on
 * every node: a release is seen within {@link #MAX_BACKOFF} and dead nodes cost no listeners.
 */
final class RedlockBackend implements LockBackend<RedisLease> {

    static final Duration MAX_BACKOFF = Duration.ofMillis(100);
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final byte[] NO_WAIT = bytes("0");

    private final List<RedisNode> nodes;
    private final int quorum;
    private final Duration nodeTimeout;
    private final Duration commandTimeout;
    private final String address;

    RedlockBackend(List<RedisNode> nodes, Duration nodeTimeout, Duration commandTimeout) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.commandTimeout = commandTimeout;
        this.address = "redlock[" + nodes.stream().map(RedisNode::address).collect(Collectors.joining(",")) + "]";
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

    @Override
    public Optional<RedisLease> tryAcquire(LockRequest request) throws InterruptedException {
        RedisKeys keys = RedisKeys.of(request.key());
        Deadline deadline = request.deadline();
        long backoff = MIN_BACKOFF_NANOS;
        while (true) {
            Round round = acquireRound(request, keys);
            if (round.lease != null) {
                return Optional.of(round.lease);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException(
                        "Interrupted while acquiring lock '" + request.key() + "' on " + address);
            }
            if (round.unreachable.size() > nodes.size() - quorum) {
                throw new LockBackendException(
                        "redis",
                        address,
                        request.key(),
                        round.unreachable.size() + " of " + nodes.size() + " Redlock nodes did not answer ("
                                + String.join("; ", round.unreachable) + "); a lock needs " + quorum
                                + ". Bring the nodes back or check the network.");
            }
            if (deadline.hasPassed()) {
                return Optional.empty();
            }
            long sleep = Math.min(
                    deadline.remainingNanos(), ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1));
            TimeUnit.NANOSECONDS.sleep(sleep);
            backoff = Math.min(backoff * 2, MAX_BACKOFF.toNanos());
        }
    }

    private Round acquireRound(LockRequest request, RedisKeys keys) {
        String owner = request.owner().value();
        long leaseNanos = request.leaseTime().toNanos();
        List<byte[]> args = List.of(bytes(owner), bytes(Long.toString(leaseMillis(request.leaseTime()))), NO_WAIT);
        long start = System.nanoTime();
        List<RedisNode.Call> calls = new ArrayList<>();
        for (RedisNode node : nodes) {
            calls.add(
                    node.start(LockScripts.ACQUIRE, request.key(), List.of(keys.lockBytes(), keys.fenceBytes()), args));
        }
        // Connecting is not answering: the nodes get nodeTimeout from when the last script was sent.
        long roundEnd = System.nanoTime() + nodeTimeout.toNanos();
        List<RedisNode> granted = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        long token = 0;
        for (int i = 0; i < calls.size(); i++) {
            try {
                AcquireReply reply = AcquireReply.parse(
                        calls.get(i).await(untilNanos(roundEnd)), calls.get(i).sentAtNanos());
                if (reply.granted()) {
                    granted.add(nodes.get(i));
                    token = Math.max(token, reply.token());
                }
            } catch (LockBackendException e) {
                unreachable.add(nodes.get(i).address() + ": " + e.getCause());
            }
        }
        long drift = leaseNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        long validity = leaseNanos - (System.nanoTime() - start) - drift;
        if (granted.size() >= quorum && validity > 0 && raiseFences(granted, request.key(), keys, token)) {
            // The local lease counts from the round's start less the drift allowance, so it ends
            // no later than the lease on any node of the majority.
            return new Round(
                    new RedisLease(request.key(), keys, owner, FencingToken.of(token), start - drift), unreachable);
        }
        releaseEverywhere(request.key(), keys, owner);
        return new Round(null, unreachable);
    }

    /** Writes the token back to the majority that granted it; true when a majority took it in time. */
    private boolean raiseFences(List<RedisNode> granted, String key, RedisKeys keys, long token) {
        List<RedisNode.Call> calls = new ArrayList<>();
        for (RedisNode node : granted) {
            calls.add(node.start(
                    LockScripts.RAISE_FENCE, key, List.of(keys.fenceBytes()), List.of(bytes(Long.toString(token)))));
        }
        long end = System.nanoTime() + nodeTimeout.toNanos();
        int raised = 0;
        for (RedisNode.Call call : calls) {
            try {
                call.await(untilNanos(end));
                raised++;
            } catch (LockBackendException e) {
                // counted as not raised
            }
        }
        return raised >= quorum;
    }

    private int releaseEverywhere(String key, RedisKeys keys, String owner) {
        List<RedisNode.Call> calls = new ArrayList<>();
        for (RedisNode node : nodes) {
            calls.add(node.start(LockScripts.RELEASE, key, List.of(keys.lockBytes()), releaseArgs(owner, keys)));
        }
        return countOnes(calls, commandTimeout)[0];
    }

    @Override
    public boolean renew(RedisLease lease, Duration leaseTime) {
        List<RedisNode.Call> calls = new ArrayList<>();
        List<byte[]> args = List.of(bytes(lease.owner()), bytes(Long.toString(leaseMillis(leaseTime))));
        for (RedisNode node : nodes) {
            calls.add(node.start(
                    LockScripts.RENEW, lease.key(), List.of(lease.keys().lockBytes()), args));
        }
        int[] counts = countOnes(calls, commandTimeout);
        return decide(counts, lease.key(), "renew");
    }

    @Override
    public boolean release(RedisLease lease) {
        List<RedisNode.Call> calls = new ArrayList<>();
        for (RedisNode node : nodes) {
            calls.add(node.start(
                    LockScripts.RELEASE,
                    lease.key(),
                    List.of(lease.keys().lockBytes()),
                    releaseArgs(lease.owner(), lease.keys())));
        }
        return decide(countOnes(calls, commandTimeout), lease.key(), "release");
    }

    /** True when a majority did it, false when a majority answered that the owner held nothing. */
    private boolean decide(int[] counts, String key, String operation) {
        int done = counts[0];
        int notHeld = counts[1];
        if (done >= quorum) {
            return true;
        }
        if (notHeld > nodes.size() - quorum) {
            return false;
        }
        throw new LockBackendException(
                "redis",
                address,
                key,
                "could " + operation + " on only " + done + " of " + nodes.size() + " Redlock nodes, "
                        + (nodes.size() - done - notHeld) + " did not answer; a majority of " + quorum
                        + " is needed. Bring the nodes back or check the network.");
    }

    /** {answered 1, answered 0, failed}, waiting at most {@code timeout} for all. */
    private static int[] countOnes(List<RedisNode.Call> calls, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        int[] counts = new int[3];
        for (RedisNode.Call call : calls) {
            try {
                counts[Long.valueOf(1).equals(call.await(untilNanos(end))) ? 0 : 1]++;
            } catch (LockBackendException e) {
                counts[2]++;
            }
        }
        return counts;
    }

    private static Duration untilNanos(long end) {
        return Duration.ofNanos(Math.max(0, end - System.nanoTime()));
    }

    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
    }

    private record Round(RedisLease lease, List<String> unreachable) {}
}
