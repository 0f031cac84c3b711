package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WriterGrace;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock algorithm. An attempt creates an ephemeral-sequential node under the key's node and waits in the key's queue
 * ({@link QueueWait}) until its {@link QueueRule} says it holds the key. An attempt that gives up deletes its node.
 * Plain locks and both sides of read/write locks share it.
 */
final class LockQueue {

    private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

    /** How many key nodes the queue remembers as existing, so that hot keys skip creating theirs. */
    private static final int RECENT_KEYS = 1024;

    /** The first pause before a retry after a transient failure. It doubles up to {@link #MAX_BACKOFF_NANOS}. */
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockPaths paths;
    private final ZooKeeperCalls calls;
    private final SessionTracker session;
    private final QueueRule rule;
    private final RecentKeys recentKeys = new RecentKeys(RECENT_KEYS);
    private final QueueWait queueWait;

    /**
     * An attempt may run {@link ZooKeeperCalls#overrunNanos()} past its wait time to finish the calls it started. A
     * zero-wait try still needs its create and read, and a timed-out one deletes its node.
     */
    LockQueue(LockPaths paths, ZooKeeperCalls calls, SessionTracker session, QueueRule rule) {
        this.paths = paths;
        this.calls = calls;
        this.session = session;
        this.rule = rule;
        this.queueWait = new QueueWait(calls, session);
    }

    /** An attempt on the key's plain lock, under the rule this queue was made with. */
    Optional<ZooKeeperLease> tryAcquire(LockRequest request) throws InterruptedException {
        return tryAcquire(request, paths.keyPath(request.key()), rule);
    }

    /**
     * An attempt in the queue under {@code keyPath}, with a node named and decided by {@code rule}. While the wait
     * lasts it rides out connection losses of a live session. It backs off, waits for the connection, finds its node by
     * its owner (a create whose answer was lost may have succeeded) and waits on in the queue. When the wait ends
     * first, it fails naming the last error.
     */
    Optional<ZooKeeperLease> tryAcquire(LockRequest request, String keyPath, QueueRule rule)
            throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        Attempt attempt =
                new Attempt(keyPath, LockPaths.ownedNodeName(request.owner().value(), rule.nodeName()));
        byte[] holder = request.holder().getBytes(StandardCharsets.US_ASCII);
        long backoffNanos = FIRST_BACKOFF_NANOS;
        LockBackendException last = null;
        boolean granted = false;
        try {
            while (true) {
                try {
                    Optional<ZooKeeperLease> lease = once(request, rule, attempt, holder, last != null);
                    granted = lease.isPresent();
                    return lease;
                } catch (LockBackendException e) {
                    if (!ZooKeeperCalls.isTransient(e) || deadline.hasPassed()) {
                        throw e;
                    }
                    last = e;
                    log.debug("Attempt on lock '{}' met a transient failure; retrying within its wait time", key, e);
                }
                backOff(backoffNanos, deadline, attempt);
                backoffNanos = Math.min(backoffNanos * 2, MAX_BACKOFF_NANOS);
                if (attempt.session != 0 && session.hasEnded(attempt.session)) {
                    throw calls.failure(
                            key, "the ZooKeeper session was lost while waiting; its place in line went with it", last);
                }
                if (deadline.hasPassed()) {
                    throw calls.failure(
                            key,
                            "ZooKeeper was unreachable until the wait time ran out; last error: " + last.getMessage(),
                            last);
                }
            }
        } finally {
            if (!granted) {
                abandon(attempt, deadline);
            }
        }
    }

    /**
     * A writer's grace ({@link WriterGrace}). It waits without a node of its own, watching the youngest node, until the
     * key's queue is empty or the grace is over, so that readers that come meanwhile get in first. It leaves nothing on
     * the server.
     *
     * @return true to join the queue now, false when the wait time ran out in the grace
     */
    boolean awaitEmptyQueue(LockRequest request, String keyPath, WriterGrace grace) throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        if (deadline.hasPassed() || !grace.isOpen()) {
            return true;
        }
        long callsEnd = callsEnd(deadline, calls.overrunNanos());
        Waiter waiter = new Waiter();
        session.addWaiter(waiter);
        try {
            while (grace.isOpen() && !session.isInterrupted()) {
                if (deadline.hasPassed()) {
                    return false;
                }
                waiter.takeDisturbance(); // what came before this read is in it
                List<String> queue = calls.queue(keyPath, key, callsEnd);
                if (queue.isEmpty()) {
                    return true;
                }
                String youngest = queue.get(queue.size() - 1);
                if (!calls.watch(keyPath, List.of(youngest), waiter, key, callsEnd)
                        .isEmpty()) {
                    continue; // gone before the watch was set, so look again
                }
                long pause = grace.cap(deadline.remainingNanos());
                if (grace.isOpen()) { // so the pause was cut to what is left of it
                    waiter.awaitDeletionOfAny(Set.of(youngest), pause);
                }
            }
            return true;
        } catch (LockBackendException e) {
            if (!ZooKeeperCalls.isTransient(e) || deadline.hasPassed()) {
                throw e;
            }
            log.debug("Writer on lock '{}' met a transient failure in its grace; joining the line", key, e);
            return true;
        } finally {
            session.removeWaiter(waiter);
        }
    }

    /** One try. It finds the attempt's node (after a failure) or creates it, then waits in the queue. */
    private Optional<ZooKeeperLease> once(
            LockRequest request, QueueRule rule, Attempt attempt, byte[] holder, boolean retry)
            throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        // No answer comes while the connection is down, and a retry had its overrun. Both end with the wait time.
        long overrun = session.isInterrupted() || retry ? 0 : calls.overrunNanos();
        long callsEnd = callsEnd(deadline, overrun);
        long askedAt = System.nanoTime();
        String ownPath = null;
        Stat stat = null;
        List<String> queue = null;
        if (retry && (attempt.path != null || attempt.createUncertain)) {
            List<String> children = calls.children(attempt.keyPath, key, callsEnd);
            String found = children == null ? null : findOwn(children, attempt.nodeName);
            Stat foundStat = found == null ? null : calls.stat(ZKPaths.makePath(attempt.keyPath, found), key, callsEnd);
            if (foundStat != null && !session.hasEnded(foundStat.getEphemeralOwner())) {
                ownPath = ZKPaths.makePath(attempt.keyPath, found);
                stat = foundStat;
                queue = children;
            }
            attempt.path = ownPath;
            attempt.createUncertain = false;
        }
        if (ownPath == null) {
            attempt.createUncertain = true;
            ZooKeeperCalls.Created created = calls.createLockNode(
                    new NewLockNode(key, attempt.keyPath, attempt.nodeName, holder),
                    recentKeys.contains(attempt.keyPath),
                    callsEnd);
            attempt.createUncertain = false;
            recentKeys.add(attempt.keyPath);
            ownPath = created.path();
            stat = created.stat();
            queue = created.siblings();
            attempt.path = ownPath;
        }
        session.adopt(stat.getEphemeralOwner());
        attempt.session = stat.getEphemeralOwner();
        QueueWait.Node own = new QueueWait.Node(
                key, attempt.keyPath, ownPath, FencingToken.of(stat.getCzxid()), stat.getEphemeralOwner());
        return queueWait.waitInQueue(own, rule, new QueueWait.FirstRead(queue, askedAt), deadline, callsEnd);
    }

    /** When the calls of an attempt must have been answered, its wait time plus {@code overrunNanos}. */
    private static long callsEnd(Deadline deadline, long overrunNanos) {
        return deadline.isForever() ? Long.MAX_VALUE : System.nanoTime() + deadline.remainingNanos() + overrunNanos;
    }

    /** The child of the attempt's own name, if one is there. */
    private static String findOwn(List<String> children, String nodeName) {
        for (String child : children) {
            if (LockPaths.isNamed(child, nodeName) && LockPaths.sequenceOf(child) >= 0) {
                return child;
            }
        }
        return null;
    }

    /**
     * Waits {@code backoffNanos} (less when the connection changes), then while the connection is down,
     * within the wait and while the session of the attempt's node lasts.
     */
    private void backOff(long backoffNanos, Deadline deadline, Attempt attempt) throws InterruptedException {
        Waiter waiter = new Waiter();
        session.addWaiter(waiter);
        try {
            waiter.await(Math.min(backoffNanos, deadline.remainingNanos()));
            while (session.isInterrupted()
                    && !deadline.hasPassed()
                    && (attempt.session == 0 || !session.hasEnded(attempt.session))) {
                waiter.await(deadline.remainingNanos());
            }
        } finally {
            session.removeWaiter(waiter);
        }
    }

    /** An attempt that ends without the key deletes the node it knows, or withdraws one a lost answer may have made. */
    private void abandon(Attempt attempt, Deadline deadline) {
        if (attempt.path != null) {
            long wait = session.isInterrupted()
                    ? 0
                    : Math.min(calls.overrunNanos(), Math.max(0, deadline.remainingNanos()));
            if (calls.delete(attempt.path, wait) == null) {
                log.debug("Delete of abandoned lock node {} still pending; Curator retries it", attempt.path);
            }
        } else if (attempt.createUncertain) {
            calls.withdrawLater(attempt.keyPath, attempt.nodeName);
        }
    }

    /** What one acquisition knows of its node across its tries. */
    private static final class Attempt {
        final String keyPath;
        /** The node's name before the sequence, from the owner's id and the rule's name. */
        final String nodeName;
        /** The node's path once known. */
        String path;
        /** A create was sent whose answer did not say whether it made the node. */
        boolean createUncertain;
        /** The session of the node once known, else 0. */
        long session;

        Attempt(String keyPath, String nodeName) {
            this.keyPath = keyPath;
            this.nodeName = nodeName;
        }
    }
}
