package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import java.util.List;

/**
 * The rules of read/write locks, over one queue per key that holds read, write and
 * downgrade nodes ({@link LockPaths#readWriteKeyPath}):
 *
 * <ul>
 *   <li>a <b>read</b> node holds when no write node is ahead of it, and otherwise watches the nearest
 *       write node ahead. A waiting writer's node is ahead of every reader that comes after it, so
 *       new readers queue behind it (no writer starvation); readers behind one writer all go when it
 *       goes. A writer creates its node only once its grace has ended or it found the queue empty
 *       ({@link ZooKeeperReadWriteBackend}), so readers that come in its grace go ahead of it.
 *   <li>a <b>write</b> node holds when it is first and no downgrade node exists, and otherwise
 *       watches its predecessor, or, when first, a downgrade node. Downgrade nodes join behind it, so
 *       it cannot skip re-reading the queue.
 *   <li>a <b>downgrade</b> node is a read taken by the thread that holds the write lock: it holds at
 *       once while that write node is in the queue (then nobody else holds the key), even behind
 *       waiting writers, which is why writers wait for every downgrade node wherever it stands. If the
 *       write node is gone (the hold was lost), it gives up; the caller then reads as anyone else.
 * </ul>
 *
 * <p>Tokens are {@code czxid}s, which rise with every change on the ensemble. A read or write node
 * that holds was created after every write node granted before it (such a write was first when
 * granted) and before every write node granted after it (a later write waits for every node ahead
 * of it, and a reader never holds with a write node ahead of it). So a write's own {@code czxid} is
 * above every token issued before it, and a read's own {@code czxid} {@code r} keeps {@code w_last
 * <= r < w_next}. A downgrade node joins behind writers that wait and are granted after it, so its
 * own {@code czxid} could exceed theirs; it carries the {@code czxid} of the write node it comes
 * from instead, which is {@code w_last} itself and below every later write (they were created after
 * that write node was first).
 */
final class ReadWriteRule implements QueueRule {

    static final ReadWriteRule READ = new ReadWriteRule(LockPaths.READ_NODE, null, null);
    static final ReadWriteRule WRITE = new ReadWriteRule(LockPaths.WRITE_NODE, null, null);

    private final String nodeName;
    /** For a downgrade: the name of the write node it comes from, and that hold's token. */
    private final String writeNode;

    private final FencingToken writeToken;

    private ReadWriteRule(String nodeName, String writeNode, FencingToken writeToken) {
        this.nodeName = nodeName;
        this.writeNode = writeNode;
        this.writeToken = writeToken;
    }

    /** The rule of a read by the thread that holds {@code write}, a hold of the key's write lock. */
    static ReadWriteRule downgradeOf(ZooKeeperLease write) {
        return new ReadWriteRule(LockPaths.DOWNGRADE_NODE, nodeOf(write.path()), write.token());
    }

    @Override
    public Verdict decide(List<String> queue, int position) {
        return switch (nodeName) {
            case LockPaths.READ_NODE -> decideRead(queue, position);
            case LockPaths.WRITE_NODE -> decideWrite(queue, position);
            default -> queue.contains(writeNode) ? Verdict.HOLDS : Verdict.GIVE_UP;
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

    /** Readers depend only on the write nodes ahead; a writer also on downgrade nodes, which join behind it. */
    @Override
    public boolean onlyNodesAheadMatter() {
        return !nodeName.equals(LockPaths.WRITE_NODE);
    }

    /** A reader waits only for write nodes; the other nodes go through the rule as it stands. */
    @Override
    public boolean dependsOn(String node) {
        return !nodeName.equals(LockPaths.READ_NODE) || LockPaths.isNamed(node, LockPaths.WRITE_NODE);
    }

    @Override
    public FencingToken token(FencingToken ownCzxid) {
        return writeToken != null ? writeToken : ownCzxid;
    }

    private static String nodeOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
