package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import java.util.List;

/**
 * The queue rule of a lock kind. Given the key's queue, it says whether an attempt holds the key and, if not, which
 * node it watches. {@link LockQueue} runs the node-and-watch loop around it. The plain lock's rule is {@link #MUTEX},
 * and read/write locks have theirs in {@link ReadWriteRule}.
 */
interface QueueRule {

    /** The lowest node holds. Every other node watches the one just before it, so a release wakes one waiter. */
    QueueRule MUTEX = (queue, position) -> position == 0 ? Verdict.HOLDS : new Verdict(false, queue.get(position - 1));

    /**
     * Decides for the attempt whose node is {@code queue.get(position)}.
     *
     * @param queue the key's lock node names, in the order they were created
     * @param position where this attempt's node stands in {@code queue}, never negative
     */
    Verdict decide(List<String> queue, int position);

    /** The name of the node an attempt creates (ZooKeeper appends the sequence). */
    default String nodeName() {
        return LockPaths.LOCK_NODE;
    }

    /**
     * Whether only the nodes ahead of the attempt's own decide for it. Nodes only join behind, so then the copy of the
     * queue stays exact once reported deletions are taken out, and the rule decides again without a read while every
     * node ahead that it {@link #dependsOn} is watched.
     */
    default boolean onlyNodesAheadMatter() {
        return true;
    }

    /** Whether the node named {@code node}, ahead of the attempt's own, can keep it from holding. */
    default boolean dependsOn(String node) {
        return true;
    }

    /** The token of a granted hold, given its own node's {@code czxid}. */
    default FencingToken token(FencingToken ownCzxid) {
        return ownCzxid;
    }

    /**
     * @param holds whether the attempt holds the key
     * @param watch the node to watch until it goes, or null when waiting cannot help and the attempt ends without the
     *     key
     */
    record Verdict(boolean holds, String watch) {
        static final Verdict HOLDS = new Verdict(true, null);
        static final Verdict GIVE_UP = new Verdict(false, null);
    }
}
