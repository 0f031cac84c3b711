package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import java.util.List;

/**
 * The queue rule of a lock kind, apart from the node-and-watch loop that follows it ({@link
 * LockQueue}): given the key's queue, does this attempt hold the key, and if not, which
 * node does it watch. The plain
 * lock's rule is {@link #MUTEX}; read/write locks have theirs in {@link ReadWriteRule}.
 */
interface QueueRule {

    /** The lowest node holds; every other node watches the one just before it, so a release wakes one waiter. */
    QueueRule MUTEX = (queue, position) -> position == 0 ? Verdict.HOLDS : new Verdict(false, queue.get(position - 1));

    /**
     * Decides for the attempt whose node is {@code queue.get(position)}.
     *
     * @param queue the key's lock node names, in the order they were created
     * @param position where this attempt's node stands in {@code queue}; never negative
     */
    Verdict decide(List<String> queue, int position);

    /** The name of the node an attempt creates (ZooKeeper appends the sequence). */
    default String nodeName() {
        return LockPaths.LOCK_NODE;
    }

    /**
     * Whether only the nodes ahead of the attempt's own decide for it. Then the queue it read stays
     * exact as far as those nodes go once the deletions it was told of are taken out (nodes only
     * join behind), so while it watches every node ahead that it {@link #dependsOn}, it decides
     * again as they go without reading the queue again.
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
     * @param watch the node name to watch until it goes, when it does not; null when waiting cannot
     *     help, so the attempt ends without the key
     */
    record Verdict(boolean holds, String watch) {
        static final Verdict HOLDS = new Verdict(true, null);
        static final Verdict GIVE_UP = new Verdict(false, null);
    }
}
