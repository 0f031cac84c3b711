package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import java.util.List;
import java.util.Optional;

/**
 * The rules of read/write locks, over one queue per key that holds read, write and downgrade nodes ({@link
 * LockPaths#readWriteKeyPath}).
 *
 * <ul>
 * <li>A <b>read</b> node holds when no write node is ahead of it, and otherwise watches the nearest write node ahead.
 *     New readers queue behind a waiting writer's node, so writers do not starve.
 * <li>A <b>write</b> node holds when it is first and no downgrade node exists. Otherwise it watches its predecessor or,
 *     when first, a downgrade node.
 * <li>A <b>downgrade</b> node is a read by the thread that holds the write lock. It holds at once while that write node
 *     is in the queue, and gives up when the write node is gone.
 * </ul>
 *
 * <p>Tokens are {@code czxid}s, and a downgrade carries the token of its write hold. {@code docs/internals/backends.md}
 * explains why they rise.
 */
final class ReadWriteRule implements QueueRule {

    static final ReadWriteRule READ = new ReadWriteRule(LockPaths.READ_NODE, Optional.empty());
    static final ReadWriteRule WRITE = new ReadWriteRule(LockPaths.WRITE_NODE, Optional.empty());

    private final String nodeName;
    /** Present only for a downgrade. */
    private final Optional<WriteHold> origin;

    /** The write hold a downgrade comes from, by its node's name and its token. */
    private record WriteHold(String node, FencingToken token) {}

    private ReadWriteRule(String nodeName, Optional<WriteHold> origin) {
        this.nodeName = nodeName;
        this.origin = origin;
    }

    /** The rule of a read by the thread that holds {@code write}, a hold of the key's write lock. */
    static ReadWriteRule downgradeOf(ZooKeeperLease write) {
        return new ReadWriteRule(
                LockPaths.DOWNGRADE_NODE, Optional.of(new WriteHold(nodeOf(write.path()), write.token())));
    }

    @Override
    public Verdict decide(List<String> queue, int position) {
        return switch (nodeName) {
            case LockPaths.READ_NODE -> decideRead(queue, position);
            case LockPaths.WRITE_NODE -> decideWrite(queue, position);
            default -> queue.contains(origin.orElseThrow().node()) ? Verdict.HOLDS : Verdict.GIVE_UP;
        };
    }

    private static Verdict decideRead(List<String> queue, int position) {
        for (int i = position - 1; i >= 0; i--) {
            if (LockPaths.isNamed(queue.get(i), LockPaths.WRITE_NODE)) {
                return new Verdict(false, queue.get(i));
            }
        }
        return Verdict.HOLDS;
    }

    private static Verdict decideWrite(List<String> queue, int position) {
        if (position > 0) {
            return new Verdict(false, queue.get(position - 1));
        }
        for (String node : queue) {
            if (LockPaths.isNamed(node, LockPaths.DOWNGRADE_NODE)) {
                return new Verdict(false, node);
            }
        }
        return Verdict.HOLDS;
    }

    @Override
    public String nodeName() {
        return nodeName;
    }

    /**
     * Readers and downgrades depend only on nodes ahead. A writer also depends on downgrade nodes, which join behind
     * it.
     */
    @Override
    public boolean onlyNodesAheadMatter() {
        return !nodeName.equals(LockPaths.WRITE_NODE);
    }

    /** A reader depends only on write nodes. Writers and downgrades depend on every node. */
    @Override
    public boolean dependsOn(String node) {
        return !nodeName.equals(LockPaths.READ_NODE) || LockPaths.isNamed(node, LockPaths.WRITE_NODE);
    }

    @Override
    public FencingToken token(FencingToken ownCzxid) {
        return origin.map(WriteHold::token).orElse(ownCzxid);
    }

    private static String nodeOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
