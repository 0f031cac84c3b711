package dev.distlock.zookeeper;

import java.util.List;

/**
 * The rule of the lock, apart from the node-and-watch loop that follows it: given the key's
 * waiting line, does this attempt hold the key, and if not, which node does it watch.
 */
interface LockDriver {

    /** The lowest node holds; every other node watches the one just before it, so a release wakes one waiter. */
    LockDriver PREDECESSOR =
            (line, position) -> position == 0 ? Verdict.HOLDS : new Verdict(false, line.get(position - 1));

    /**
     * Decides for the attempt whose node is {@code line.get(position)}.
     *
     * @param line the key's lock node names, in the order they were created
     * @param position where this attempt's node stands in {@code line}; never negative
     */
    Verdict decide(List<String> line, int position);

    /**
     * @param holds whether the attempt holds the key
     * @param watch the node name to watch until it goes, when it does not
     */
    record Verdict(boolean holds, String watch) {
        static final Verdict HOLDS = new Verdict(true, null);
    }
}
