package dev.distlock.zookeeper;

import dev.distlock.core.LockBackendException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server calls the lock needs. Each is a Curator background call whose answer the caller awaits until an absolute
 * {@link System#nanoTime()}, {@code callsEnd} ({@link Long#MAX_VALUE} for no limit). Curator's blocking calls wait for
 * its connection timeout and retries, far beyond a caller's wait time during a silent partition. Failures become {@link
 * LockBackendException}s that name the key, the address and what to do.
 */
final class ZooKeeperCalls {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperCalls.class);

    private static final BackgroundCallback IGNORED = (client, event) -> {};

    private final CuratorFramework client;
    private final String address;
    private final long answerBudgetNanos;
    private final NodeWithdrawals withdrawals;

    /** @param answerBudget how far past its wait time a caller may wait for answers (contract 8) */
    ZooKeeperCalls(CuratorFramework client, String address, Duration answerBudget) {
        this.client = client;
        this.address = address;
        this.answerBudgetNanos = answerBudget.toNanos();
        this.withdrawals = new NodeWithdrawals(client, path -> delete(path, 0));
    }

    /**
     * How far past its wait time a caller waits for the answers to calls it started, the answer budget. Recent slow
     * answers do not widen it, as answers that a silence delayed let the next calls overrun further.
     */
    long overrunNanos() {
        return answerBudgetNanos;
    }

    String address() {
        return address;
    }

    /**
     * Creates a protected ephemeral-sequential lock node as {@code node} describes (parents as containers) and reads
     * the key's children right behind it. A node created after the caller gave up is deleted.
     *
     * @param keyNodeKnown whether the key's node existed lately. If not, its creation is sent first, as a create that
     *     finds it costs the server little and a missing parent costs a round trip
     */
    Created createLockNode(NewLockNode node, boolean keyNodeKnown, long callsEnd) throws InterruptedException {
        String key = node.key();
        String keyPath = node.keyPath();
        byte[] data = node.data();
        String path = LockPaths.lockNodePath(keyPath, node.name());
        PendingCall read = null;
        CuratorEvent created = null;
        for (int attempt = keyNodeKnown ? 0 : 1; attempt < 4; attempt++) {
            if (attempt == 1) {
                // The key's node is missing (first use, or swept when empty). Create it as a container in the same
                // round trip.
                sendCreateContainer(keyPath, key);
            }
            // Past that, Curator creates every missing parent, one call at a time.
            PendingCall create = sendCreate(path, data, key, attempt >= 2);
            // Answered in order after the create, so it shows the queue just after this node joined.
            read = attempt >= 2 ? null : sendChildren(keyPath, key);
            created = answer(create, key, "creating its lock node", callsEnd);
            if (created.getResultCode() != KeeperException.Code.NONODE.intValue()) {
                break;
            }
        }
        if (existing(created, key) == null) {
            throw failure(key, "its lock node's parent " + keyPath + " kept vanishing");
        }
        CuratorEvent queue = read == null ? null : read.await(callsEnd - System.nanoTime());
        boolean queueSeen = queue != null && queue.getResultCode() == KeeperException.Code.OK.intValue();
        return new Created(created.getName(), created.getStat(), queueSeen ? queue.getChildren() : null);
    }

    /** The lock nodes under {@code keyPath} in queue order ({@link LockPaths#queue}). Empty when it does not exist. */
    List<String> queue(String keyPath, String key, long callsEnd) throws InterruptedException {
        List<String> children = children(keyPath, key, callsEnd);
        return children == null ? List.of() : LockPaths.queue(children);
    }

    /** The children of {@code path}, or null when it does not exist. */
    List<String> children(String path, String key, long callsEnd) throws InterruptedException {
        PendingCall read = sendChildren(path, key);
        CuratorEvent children = existing(answer(read, key, "reading the children of " + path, callsEnd), key);
        return children == null ? null : children.getChildren();
    }

    private PendingCall sendCreate(String path, byte[] data, String key, boolean withParents) {
        PendingCall create = new PendingCall(this::deleteLateNode);
        try {
            if (withParents) {
                client.create()
                        .creatingParentContainersIfNeeded()
                        .withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .inBackground(create)
                        .forPath(path, data);
            } else {
                client.create()
                        .withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .inBackground(create)
                        .forPath(path, data);
            }
        } catch (Exception e) {
            throw failure(key, "could not send the request that creates its lock node", e);
        }
        return create;
    }

    /** Creates the key's node as a container without waiting for the answer (it may exist already). */
    private void sendCreateContainer(String keyPath, String key) {
        try {
            client.create().withMode(CreateMode.CONTAINER).inBackground(IGNORED).forPath(keyPath);
        } catch (Exception e) {
            throw failure(key, "could not send the request that creates the key's node " + keyPath, e);
        }
    }

    private PendingCall sendChildren(String path, String key) {
        PendingCall read = new PendingCall();
        try {
            client.getChildren().inBackground(read).forPath(path);
        } catch (Exception e) {
            throw failure(key, "could not send the read of " + path, e);
        }
        return read;
    }

    /** The node's stat, or null when it does not exist. */
    Stat stat(String path, String key, long callsEnd) throws InterruptedException {
        PendingCall read = new PendingCall();
        try {
            client.checkExists().inBackground(read).forPath(path);
        } catch (Exception e) {
            throw failure(key, "could not send the read of " + path, e);
        }
        CuratorEvent result = existing(answer(read, key, "reading " + path, callsEnd), key);
        return result == null ? null : result.getStat();
    }

    /**
     * Sets {@code watcher} on the nodes named {@code nodes} under {@code keyPath} by reads of their data, sent back to
     * back in one round trip. A read sets no watch on a node that is gone already. An {@code exists} watch would, and
     * it would neither fire nor be freed.
     *
     * @return the names of the nodes that no longer exist
     */
    Set<String> watch(String keyPath, List<String> nodes, Watcher watcher, String key, long callsEnd)
            throws InterruptedException {
        List<PendingCall> reads = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            PendingCall read = new PendingCall();
            try {
                client.getData().usingWatcher(watcher).inBackground(read).forPath(ZKPaths.makePath(keyPath, node));
            } catch (Exception e) {
                throw failure(key, "could not send the read of " + node + " under " + keyPath, e);
            }
            reads.add(read);
        }
        Set<String> gone = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            if (existing(answer(reads.get(i), key, "reading " + node + " under " + keyPath, callsEnd), key) == null) {
                gone.add(node);
            }
        }
        return gone;
    }

    /** The node's data and stat, or null when it does not exist. */
    CuratorEvent data(String path, String key, long callsEnd) throws InterruptedException {
        PendingCall read = new PendingCall();
        try {
            client.getData().inBackground(read).forPath(path);
        } catch (Exception e) {
            throw failure(key, "could not send the read of " + path, e);
        }
        return existing(answer(read, key, "reading " + path, callsEnd), key);
    }

    /**
     * Deletes {@code path}. Curator retries the delete until it succeeds or the session ends, however long the wait for
     * its answer, which is at most {@code waitNanos} (none at 0).
     *
     * @return the answer, or null when none came in time
     */
    CuratorEvent delete(String path, long waitNanos) {
        PendingCall delete = new PendingCall();
        try {
            client.delete().guaranteed().inBackground(delete).forPath(path);
        } catch (Exception e) {
            log.debug("Could not send the delete of lock node {}", path, e);
            return null;
        }
        return waitNanos <= 0 ? null : delete.awaitUninterruptibly(waitNanos);
    }

    /**
     * Whether {@code failure} came from a connection loss (or an operation timeout) of a session that may still be
     * alive. A later try can succeed, and the call may have been applied.
     */
    static boolean isTransient(LockBackendException failure) {
        Throwable cause = failure.getCause();
        return cause instanceof KeeperException.ConnectionLossException
                || cause instanceof KeeperException.OperationTimeoutException;
    }

    /**
     * Deletes in the background the lock node named {@code nodeName} under {@code keyPath} that a create whose answer
     * was lost may have made, so that it cannot block the key while its session lives. It is tried again every second
     * while ZooKeeper is unreachable, for ten minutes at most.
     */
    void withdrawLater(String keyPath, String nodeName) {
        withdrawals.withdrawLater(keyPath, nodeName);
    }

    /**
     * A created lock node.
     *
     * @param path the node's full path
     * @param stat its stat ({@code czxid}, owning session)
     * @param siblings the key's children as read right after the create, or null when that read did
     *     not come back or came before the node could be seen (its parent was being created)
     */
    record Created(String path, Stat stat, List<String> siblings) {}

    LockBackendException failure(String key, String problem, Throwable cause) {
        return new LockBackendException("zookeeper", address, key, advised(problem), cause);
    }

    /** As {@link #failure(String, String, Throwable)}, for a problem without an exception. */
    LockBackendException failure(String key, String problem) {
        return new LockBackendException("zookeeper", address, key, advised(problem));
    }

    private static String advised(String problem) {
        return problem + ". Check that the ZooKeeper ensemble is up and reachable, and the session timeout.";
    }

    private CuratorEvent answer(PendingCall call, String key, String what, long callsEnd) throws InterruptedException {
        CuratorEvent event = call.await(callsEnd == Long.MAX_VALUE ? Long.MAX_VALUE : callsEnd - System.nanoTime());
        if (event == null) {
            throw failure(key, "no answer in time while " + what);
        }
        return event;
    }

    /** The event, null for a node that does not exist, or a failure for any other error. */
    private CuratorEvent existing(CuratorEvent event, String key) {
        int rc = event.getResultCode();
        if (rc == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        if (rc != KeeperException.Code.OK.intValue()) {
            KeeperException.Code code = KeeperException.Code.get(rc);
            throw failure(
                    key,
                    event.getType() + " of " + event.getPath() + " failed with " + code,
                    KeeperException.create(code, event.getPath()));
        }
        return event;
    }

    /**
     * Deletes the node of a create that succeeded after its caller stopped waiting, so that it cannot block the key.
     */
    private void deleteLateNode(CuratorEvent created) {
        if (created.getResultCode() == KeeperException.Code.OK.intValue()) {
            delete(created.getName(), 0);
        }
    }
}
