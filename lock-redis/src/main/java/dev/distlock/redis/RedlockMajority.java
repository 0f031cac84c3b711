package dev.distlock.redis;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.redis.LockScripts.StoredHolder;
import dev.distlock.redis.NodeReplies.Tally;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The majority rule of a Redlock set. It says when the nodes' answers decide a call, and names the nodes in the failure
 * when they do not.
 *
 * @param address the set's address, for failures
 * @param nodes how many nodes the set has
 * @param quorum how many of them make a majority
 */
record RedlockMajority(String address, int nodes, int quorum) {

    static RedlockMajority of(String address, int nodes) {
        return new RedlockMajority(address, nodes, nodes / 2 + 1);
    }

    /** Whether a majority is down, reconnecting or silent. They failed, or the deadline passed with them unanswered. */
    boolean outOfReach(Tally<?> round, Deadline deadline) {
        boolean unreachable = round.failures().size() + round.pending() > nodes - quorum;
        return unreachable && (round.failures().size() > nodes - quorum || deadline.hasPassed());
    }

    LockBackendException unreachable(String key, Tally<?> round) {
        return new LockBackendException(
                "redis",
                address,
                key,
                (round.failures().size() + round.pending()) + " of " + nodes
                        + " Redlock nodes did not answer (" + round.problems() + "); a lock needs " + quorum
                        + ". Bring the nodes back or check the network.");
    }

    /** A majority did it, or so many answered that the owner held nothing that no majority can. */
    boolean decided(Tally<Boolean> tally) {
        return tally.count(Boolean::booleanValue) >= quorum || tally.count(done -> !done) > nodes - quorum;
    }

    /** True when a majority did it, false when a majority answered that the owner held nothing. */
    boolean decide(Tally<Boolean> tally, String key, String operation) {
        long done = tally.count(Boolean::booleanValue);
        if (done >= quorum) {
            return true;
        }
        if (tally.count(d -> !d) > nodes - quorum) {
            return false;
        }
        throw new LockBackendException(
                "redis",
                address,
                key,
                "could " + operation + " on only " + done + " of " + nodes + " Redlock nodes ("
                        + tally.problems() + "); a majority of " + quorum
                        + " is needed. Bring the nodes back or check the network.");
    }

    void require(Tally<?> tally, String key, String operation) {
        if (tally.answers().size() < quorum) {
            throw new LockBackendException(
                    "redis",
                    address,
                    key,
                    "could " + operation + " the lock on only "
                            + tally.answers().size() + " of " + nodes
                            + " Redlock nodes (" + tally.problems() + "); a majority of " + quorum
                            + " is needed. Bring the nodes back or check the network.");
        }
    }

    /**
     * The hold's token. It is the one a majority recorded when the token was written back, or the largest of the nodes'
     * own before that (a moment after the grant).
     */
    long token(List<StoredHolder> agreeing) {
        return agreeing.stream()
                .collect(Collectors.groupingBy(StoredHolder::token, Collectors.counting()))
                .entrySet()
                .stream()
                .filter(count -> count.getValue() >= quorum)
                .mapToLong(Map.Entry::getKey)
                .findFirst()
                .orElseGet(() ->
                        agreeing.stream().mapToLong(StoredHolder::token).max().orElseThrow());
    }
}
