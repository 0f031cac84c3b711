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
 * One attempt's wait in the key's queue once its node is there ({@link LockQueue}). It asks the {@link QueueRule}
 * whether the node holds the key or which node to wait for, and watches that node and the one ahead of it. Each
 * reported deletion is taken out of its copy of the queue, which is read again only when it may be stale.
 */
final class QueueWait {

    /**
     * How many nodes ahead an attempt watches. Two, so that the queue is read while the next holder holds the key, not
     * after its release.
     */
    static final int WATCHED_AHEAD = 2;

    private final ZooKeeperCalls calls;
    private final SessionTracker session;

    QueueWait(ZooKeeperCalls calls, SessionTracker session) {
        this.calls = calls;
        this.session = session;
    }

    /** Waits until the node holds the key ({@code own}'s lease) or the deadline passes (empty). */
    Optional<ZooKeeperLease> waitInQueue(Node own, QueueRule rule, FirstRead first, Deadline deadline, long callsEnd)
            throws InterruptedException {
        Wait wait = new Wait(own, rule, deadline, callsEnd);
        session.addWaiter(wait.waiter);
        try {
            return wait.from(first).run();
        } finally {
            session.removeWaiter(wait.waiter);
        }
    }

    /** One node's wait, with its copy of the queue and the nodes ahead it watches. */
    private final class Wait {

        private final Node own;
        private final String ownName;
        private final QueueRule rule;
        private final Waiter waiter = new Waiter();
        private final Deadline deadline;
        private final long callsEnd;
        private final Set<String> watched = new HashSet<>();
        /** The queue as last read, less the deletions reported since. Null when it must be read again. */
        private List<String> queue;
        /** When the request this copy of the queue rests on was sent. The server heard from the session then. */
        private long queueReadAt;

        private boolean firstRead = true;

        Wait(Node own, QueueRule rule, Deadline deadline, long callsEnd) {
            this.own = own;
            this.ownName = ZKPaths.getNodeFromPath(own.path);
            this.rule = rule;
            this.deadline = deadline;
            this.callsEnd = callsEnd;
        }

        Wait from(FirstRead first) {
            queue = first.children() == null ? null : LockPaths.queue(first.children());
            queueReadAt = first.askedAt();
            return this;
        }

        Optional<ZooKeeperLease> run() throws InterruptedException {
            while (true) {
                checkSession(own);
                if (session.isInterrupted()) {
                    awaitConnection();
                    continue;
                }
                boolean read = readIfStale();
                int position = queue.indexOf(ownName);
                if (position < 0) {
                    if (firstRead && !read) {
                        queue = null; // the read sent with the create missed this node, so read again
                        continue;
                    }
                    throw calls.failure(
                            own.key, "its lock node " + own.path + " disappeared while waiting: the session expired");
                }
                firstRead = false;
                QueueRule.Verdict verdict = rule.decide(queue, position);
                if (verdict.holds()) {
                    return Optional.of(grant());
                }
                if (deadline.hasPassed() || verdict.watch() == null) {
                    return Optional.empty();
                }
                boolean waiting = rule.onlyNodesAheadMatter()
                        ? watchAhead(position, verdict.watch())
                        : watchNamed(verdict.watch());
                if (!waiting) {
                    return Optional.empty();
                }
            }
        }

        /** Waits for the connection to return or the session to end, as calls would only queue in Curator. */
        private void awaitConnection() throws InterruptedException {
            if (!waiter.await(deadline.remainingNanos())) {
                throw connectionDown(own);
            }
            queue = null;
        }

        /** Reads the queue when this copy may be stale, and says whether it did. */
        private boolean readIfStale() throws InterruptedException {
            if (queue != null) {
                return false;
            }
            waiter.takeDisturbance(); // what came before this read is in it
            queueReadAt = System.nanoTime();
            queue = calls.queue(own.keyPath, own.key, callsEnd);
            watched.clear();
            return true;
        }

        private ZooKeeperLease grant() {
            ZooKeeperLease lease =
                    new ZooKeeperLease(own.key, own.path, rule.token(own.token), own.session, queueReadAt);
            if (!session.track(lease)) {
                checkSession(own);
            }
            return lease;
        }

        /**
         * For a rule that nodes joining behind can matter to. Watches the node the rule names and reads the queue when
         * it goes.
         *
         * @return false when the wait time ran out
         */
        private boolean watchNamed(String node) throws InterruptedException {
            boolean gone = !calls.watch(own.keyPath, List.of(node), waiter, own.key, callsEnd)
                    .isEmpty();
            if (!gone && !awaitDeletion(waiter, Set.of(node), deadline, own)) {
                return false;
            }
            queue = null;
            return true;
        }

        /**
         * Watches the nearest nodes ahead that the rule depends on. Each reported deletion comes out of this copy of
         * the queue, and the rule decides again without a read. That is exact while every node ahead that the rule
         * depends on is watched, so until then any deletion calls for a read.
         *
         * @return false when the wait time ran out
         */
        private boolean watchAhead(int position, String node) throws InterruptedException {
            List<String> ahead = dependenciesAhead(rule, queue, position);
            if (watchNearest(ahead, node)) {
                return true;
            }
            boolean allWatched = watched.containsAll(ahead);
            if (!awaitDeletion(waiter, allWatched ? Set.of(node) : watched, deadline, own)) {
                return false;
            }
            boolean fresh =
                    System.nanoTime() - queueReadAt < session.sessionTimeout().toNanos() / 3;
            if (waiter.takeDisturbance() || !allWatched || !fresh) {
                // A grant decided here counts from queueReadAt, so it is taken only while that is recent.
                queue = null;
            } else {
                queue = waiter.withoutDeleted(queue);
            }
            return true;
        }

        /** Sets the watches not yet set. True when some of those nodes were gone already, which updates the queue. */
        private boolean watchNearest(List<String> ahead, String node) throws InterruptedException {
            List<String> toWatch = new ArrayList<>(ahead.subList(0, Math.min(WATCHED_AHEAD, ahead.size())));
            if (!toWatch.contains(node)) {
                toWatch.add(node);
            }
            toWatch.removeAll(watched);
            if (toWatch.isEmpty()) {
                return false;
            }
            long sentAt = System.nanoTime();
            Set<String> gone = calls.watch(own.keyPath, toWatch, waiter, own.key, callsEnd);
            watched.addAll(toWatch);
            watched.removeAll(gone);
            queueReadAt = sentAt;
            if (gone.isEmpty()) {
                return false;
            }
            waiter.deleted(gone);
            queue = waiter.withoutDeleted(queue);
            return true;
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
        return !deadline.hasPassed(); // a passed deadline means nothing came and the nodes ahead are still there
    }

    /** The nodes ahead of {@code position} that {@code rule} depends on, nearest first. */
    private static List<String> dependenciesAhead(QueueRule rule, List<String> queue, int position) {
        List<String> ahead = new ArrayList<>();
        for (int i = position - 1; i >= 0; i--) {
            if (rule.dependsOn(queue.get(i))) {
                ahead.add(queue.get(i));
            }
        }
        return ahead;
    }

    private void checkSession(Node own) {
        if (session.hasEnded(own.session)) {
            throw calls.failure(
                    own.key, "the ZooKeeper session was lost while waiting; its place in line went with it");
        }
    }

    private RuntimeException connectionDown(Node own) {
        return calls.failure(own.key, "the connection to ZooKeeper was down when the wait time ran out");
    }

    /** This attempt's node, with its token and the session that owns it. */
    record Node(String key, String keyPath, String path, FencingToken token, long session) {}

    /**
     * The key's children as read together with the create or the look for the node.
     *
     * @param children the children, null when unusable
     * @param askedAt when the create and that read were sent
     */
    record FirstRead(List<String> children, long askedAt) {}
}
