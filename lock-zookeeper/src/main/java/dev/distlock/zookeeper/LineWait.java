package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.spi.Deadline;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.utils.ZKPaths;

/**
 * One attempt's wait in the key's waiting line, once its node is there (see {@link LockQueue}):
 * asks the {@link QueueRule} whether the node holds the key or which node to wait for, watches that
 * node and the one ahead of it, and takes each reported deletion out of the line it read, reading
 * the line again only when its copy may be stale.
 */
final class LineWait {

    /**
     * How many of the nodes ahead that its rule depends on an attempt watches: the node it waits for
     * and the one ahead of that. When that one goes, the node it waits for most likely holds the key
     * now, and the attempt reads the line while it does, so that its release needs no read. Each
     * watch costs a read when set and an event when its node goes, however long the line.
     */
    static final int WATCHED_AHEAD = 2;

    private final ZooKeeperCalls calls;
    private final SessionTracker session;

    LineWait(ZooKeeperCalls calls, SessionTracker session) {
        this.calls = calls;
        this.session = session;
    }

    /**
     * @param firstLine the key's children as read together with the create (null when unusable)
     * @param firstAskedAt when the create and that read were sent
     */
    Optional<ZooKeeperLease> waitInLine(
            Node own, QueueRule rule, List<String> firstLine, long firstAskedAt, Deadline deadline, long callsEnd)
            throws InterruptedException {
        String ownName = ZKPaths.getNodeFromPath(own.path);
        Waiter waiter = new Waiter();
        session.addWaiter(waiter);
        // The line as last read, less the deletions reported since; null when it must be read (again).
        List<String> line = firstLine == null ? null : LockPaths.queue(firstLine);
        boolean firstRead = true;
        // When the latest request that this copy of the line rests on was sent: the server heard from the session then.
        long lineAt = firstAskedAt;
        Set<String> watched = new HashSet<>();
        try {
            while (true) {
                checkSession(own);
                if (session.isInterrupted()) {
                    // Calls would only queue in Curator; wait for the connection to return or the session to end.
                    if (!waiter.await(deadline.remainingNanos())) {
                        throw connectionDown(own);
                    }
                    line = null;
                    continue;
                }
                boolean read = line == null;
                if (read) {
                    waiter.takeDisturbance(); // what came before this read is in it
                    lineAt = System.nanoTime();
                    line = calls.line(own.keyPath, own.key, callsEnd);
                    watched.clear();
                }
                int position = line.indexOf(ownName);
                if (position < 0) {
                    if (firstRead && !read) {
                        line = null; // the read sent with the create did not see this node yet: read again
                        continue;
                    }
                    throw calls.failure(
                            own.key,
                            "its lock node " + own.path + " disappeared while waiting: the session expired",
                            null);
                }
                firstRead = false;
                QueueRule.Verdict verdict = rule.decide(line, position);
                if (verdict.holds()) {
                    ZooKeeperLease lease =
                            new ZooKeeperLease(own.key, own.path, rule.token(own.token), own.session, lineAt);
                    if (!session.track(lease)) {
                        checkSession(own);
                    }
                    return Optional.of(lease);
                }
                if (deadline.hasPassed() || verdict.watch() == null) {
                    return Optional.empty();
                }
                if (!rule.onlyNodesAheadMatter()) {
                    // Nodes that join behind can matter: watch the node the rule names, and read the line when it goes.
                    if (!calls.watch(own.keyPath, List.of(verdict.watch()), waiter, own.key, callsEnd)
                            .isEmpty()) {
                        line = null; // gone before the watch was set: look again
                        continue;
                    }
                    if (!awaitDeletion(waiter, Set.of(verdict.watch()), deadline, own)) {
                        return Optional.empty();
                    }
                    line = null;
                    continue;
                }
                // Watch the nearest nodes ahead that the rule depends on; each reported deletion comes out of this copy
                // of the line, and the rule decides again without a read, which is exact as long as every node ahead
                // that it depends on is watched. While some are not, the deletion of any watched node calls for a read.
                List<String> ahead = dependenciesAhead(rule, line, position);
                List<String> toWatch = new ArrayList<>(ahead.subList(0, Math.min(WATCHED_AHEAD, ahead.size())));
                if (!toWatch.contains(verdict.watch())) {
                    toWatch.add(verdict.watch());
                }
                toWatch.removeAll(watched);
                if (!toWatch.isEmpty()) {
                    long sentAt = System.nanoTime();
                    Set<String> gone = calls.watch(own.keyPath, toWatch, waiter, own.key, callsEnd);
                    watched.addAll(toWatch);
                    watched.removeAll(gone);
                    lineAt = sentAt;
                    if (!gone.isEmpty()) {
                        waiter.deleted(gone);
                        line = waiter.withoutDeleted(line);
                        continue;
                    }
                }
                boolean allWatched = watched.containsAll(ahead);
                if (!awaitDeletion(waiter, allWatched ? Set.of(verdict.watch()) : watched, deadline, own)) {
                    return Optional.empty();
                }
                boolean fresh =
                        System.nanoTime() - lineAt < session.sessionTimeout().toNanos() / 3;
                if (waiter.takeDisturbance() || !allWatched || !fresh) {
                    // A grant decided here counts from lineAt, so it is taken only while that is recent.
                    line = null;
                } else {
                    line = waiter.withoutDeleted(line);
                }
            }
        } finally {
            session.removeWaiter(waiter);
        }
    }

    /**
     * Waits for the deletion of one of {@code nodes}, or for anything else that calls for a read.
     *
     * @return false when the wait time ran out with the nodes still there
     */
    private boolean awaitDeletion(Waiter waiter, Set<String> nodes, Deadline deadline, Node own)
            throws InterruptedException {
        if (waiter.awaitDeletionOfAny(nodes, deadline.remainingNanos())) {
            return true;
        }
        if (session.isInterrupted()) {
            throw connectionDown(own);
        }
        return !deadline.hasPassed(); // when it passed, nothing came: the nodes ahead are still there
    }

    /** The nodes ahead of {@code position} that {@code rule} depends on, nearest first. */
    private static List<String> dependenciesAhead(QueueRule rule, List<String> line, int position) {
        List<String> ahead = new ArrayList<>();
        for (int i = position - 1; i >= 0; i--) {
            if (rule.dependsOn(line.get(i))) {
                ahead.add(line.get(i));
            }
        }
        return ahead;
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
    record Node(String key, String keyPath, String path, FencingToken token, long session) {}
}
