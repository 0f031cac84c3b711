package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock algorithm: an attempt creates an ephemeral-sequential node under the key's node (its
 * data is the holder's description), reads the key's waiting line, and asks the {@link
 * LockDriver} whether it holds the key or which node to watch; it waits for that node to go (or
 * the connection to change) and reads again. An attempt that gives up deletes its node. Plain
 * locks and both sides of read/write locks run this loop; only the key's node and the rule differ.
 */
final class LockQueue {

    private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

    /** How many key nodes the queue remembers as existing, so that hot keys skip creating theirs. */
    private static final int RECENT_KEYS = 1024;

    private final LockPaths paths;
    private final ZooKeeperCalls calls;
    private final SessionTracker session;
    private final LockDriver driver;
    private final RecentKeys recentKeys = new RecentKeys(RECENT_KEYS);

    /**
     * An attempt may run {@link ZooKeeperCalls#overrunNanos()} past its wait time to finish the calls it
     * started (a zero-wait try still needs its create and read; a timed-out one deletes its node).
     */
    LockQueue(LockPaths paths, ZooKeeperCalls calls, SessionTracker session, LockDriver driver) {
        this.paths = paths;
        this.calls = calls;
        this.session = session;
        this.driver = driver;
    }

    /** An attempt on the key's plain lock, under the rule this queue was made with. */
    Optional<ZooKeeperLease> tryAcquire(LockRequest request) throws InterruptedException {
        return tryAcquire(request, paths.keyPath(request.key()), driver);
    }

    /** An attempt in the waiting line under {@code keyPath}, with a node named and decided by {@code rule}. */
    Optional<ZooKeeperLease> tryAcquire(LockRequest request, String keyPath, LockDriver rule)
            throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        // While the connection is down no answer can come: no reason to wait past the wait time.
        long overrun = session.isInterrupted() ? 0 : calls.overrunNanos();
        long callsEnd = deadline.isForever() ? Long.MAX_VALUE : System.nanoTime() + deadline.remainingNanos() + overrun;
        long askedAt = System.nanoTime();
        byte[] holder = request.holder().getBytes(StandardCharsets.US_ASCII);
        ZooKeeperCalls.Created created =
                calls.createLockNode(keyPath, rule.nodeName(), holder, key, recentKeys.contains(keyPath), callsEnd);
        recentKeys.add(keyPath);
        String ownPath = created.path();
        boolean granted = false;
        try {
            Stat stat = created.stat();
            session.adopt(stat.getEphemeralOwner());
            Node own = new Node(key, keyPath, ownPath, FencingToken.of(stat.getCzxid()), stat.getEphemeralOwner());
            Optional<ZooKeeperLease> lease = waitInLine(own, rule, created.siblings(), askedAt, deadline, callsEnd);
            granted = lease.isPresent();
            return lease;
        } finally {
            if (!granted) {
                long wait = Math.min(overrun, Math.max(0, callsEnd - System.nanoTime()));
                if (calls.delete(ownPath, wait) == null) {
                    log.debug("Delete of abandoned lock node {} still pending; Curator retries it", ownPath);
                }
            }
        }
    }

    /**
     * @param firstLine the key's children as read together with the create (null when unusable)
     * @param firstAskedAt when the create and that read were sent
     */
    private Optional<ZooKeeperLease> waitInLine(
            Node own, LockDriver rule, List<String> firstLine, long firstAskedAt, Deadline deadline, long callsEnd)
            throws InterruptedException {
        String ownName = ZKPaths.getNodeFromPath(own.path);
        Waiter waiter = new Waiter();
        session.addWaiter(waiter);
        List<String> known = firstLine;
        long knownAt = firstAskedAt;
        try {
            while (true) {
                checkSession(own);
                if (session.isInterrupted()) {
                    // Calls would only queue in Curator; wait for the connection to return or the session to end.
                    if (!waiter.await(deadline.remainingNanos())) {
                        throw connectionDown(own);
                    }
                    continue;
                }
                long askedAt = known != null ? knownAt : System.nanoTime();
                List<String> children = known != null ? known : calls.children(own.keyPath, own.key, callsEnd);
                List<String> line = LockPaths.queue(children == null ? List.of() : children);
                int position = line.indexOf(ownName);
                if (position < 0 && known != null) {
                    known = null; // that read did not see this node yet: read again
                    continue;
                }
                known = null;
                if (position < 0) {
                    throw calls.failure(
                            own.key,
                            "its lock node " + own.path + " disappeared while waiting: the session expired",
                            null);
                }
                LockDriver.Verdict verdict = rule.decide(line, position);
                if (verdict.holds()) {
                    ZooKeeperLease lease =
                            new ZooKeeperLease(own.key, own.path, rule.token(own.token), own.session, askedAt);
                    if (!session.track(lease)) {
                        checkSession(own);
                    }
                    return Optional.of(lease);
                }
                if (deadline.hasPassed() || verdict.watch() == null) {
                    return Optional.empty();
                }
                long watchSetAt = System.nanoTime();
                if (calls.stat(ZKPaths.makePath(own.keyPath, verdict.watch()), waiter, own.key, callsEnd) == null) {
                    continue; // gone before the watch was set: look again
                }
                if (!waiter.await(deadline.remainingNanos())) {
                    if (session.isInterrupted()) {
                        throw connectionDown(own);
                    }
                    if (deadline.hasPassed()) {
                        return Optional.empty(); // nothing came: the node ahead is still there
                    }
                } else if (rule.onlyNodesAheadMatter()
                        && verdict.watch().equals(line.get(0))
                        && waiter.sawDeletionOf(verdict.watch())
                        && System.nanoTime() - watchSetAt
                                < session.sessionTimeout().toNanos() / 3) {
                    // The first node is gone, and none can join ahead (sequence numbers only rise): the rest of the
                    // line is what a read would show one round trip later, as far as the nodes ahead of this one
                    // go, and the rule looks no further. The server last heard from the session when the watch was
                    // set, which is what the lease counts from.
                    known = line.subList(1, line.size());
                    knownAt = watchSetAt;
                }
            }
        } finally {
            session.removeWaiter(waiter);
        }
    }

    private void checkSession(Node own) {
        if (session.hasEnded(own.session)) {
            throw calls.failure(
                    own.key, "the ZooKeeper session was lost while waiting; its place in line went with it", null);
        }
    }

    private RuntimeException connectionDown(Node own) {
        return calls.failure(own.key, "the connection to ZooKeeper was down when the wait time ran out", null);
    }

    /** This attempt's node: where it is, its token and the session that owns it. */
    private record Node(String key, String keyPath, String path, FencingToken token, long session) {}
}
