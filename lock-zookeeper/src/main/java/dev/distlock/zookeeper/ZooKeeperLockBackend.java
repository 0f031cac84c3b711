package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as ephemeral-sequential nodes under {@code root/<encoded key>}: the lowest sequence
 * holds, every other node watches only the node just before it, so a release wakes one waiter.
 * The token is the owner node's {@code czxid}, which rises across the whole ensemble.
 *
 * <p>The lease is the session. While the connection is suspended holds are unsafe; when the
 * session is lost (or replaced on reconnect) they are reported lost. Every server call is a
 * Curator background call awaited for at most the caller's wait time plus {@link #OVERRUN}, so
 * a silent partition cannot hold a caller past its deadline.
 */
final class ZooKeeperLockBackend implements LockBackend<ZooKeeperLease> {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockBackend.class);

    /**
     * How far past its wait time an attempt may run to finish the calls it started (a zero-wait
     * try still needs its create and read; a timed-out one deletes its node). Past it, the
     * attempt fails with {@link LockBackendException} even if the connection looks fine, which
     * is what bounds a caller during a silent partition.
     */
    static final Duration OVERRUN = Duration.ofMillis(1000);

    /** Which node a waiter watches. */
    enum Watching {
        /** The node just before its own: one waiter wakes per release. */
        PREDECESSOR,
        /** The first node, as a naive lock would: every waiter wakes on each release. Only to show a herd in tests. */
        FIRST
    }

    private final CuratorFramework client;
    private final LockPaths paths;
    private final Watching watching;
    private final String address;
    private final long callTimeoutNanos;

    private final Set<ZooKeeperLease> leases = ConcurrentHashMap.newKeySet();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private final ConnectionStateListener connectionListener = (c, state) -> connectionChanged(state);
    private final AtomicLong sessionId = new AtomicLong();
    /** Sessions known to have ended: their nodes are gone. One entry per session loss, so it stays tiny. */
    private final Set<Long> endedSessions = ConcurrentHashMap.newKeySet();

    private volatile boolean connectionInterrupted;
    private volatile LeaseListener leaseListener = (lease, reason) -> {};

    private final LongAdder watchNotifications = new LongAdder();
    private final LongAdder queueReads = new LongAdder();

    ZooKeeperLockBackend(CuratorFramework client, LockPaths paths, Watching watching) {
        this.client = client;
        this.paths = paths;
        this.watching = watching;
        String namespace =
                client.getNamespace() == null || client.getNamespace().isEmpty() ? "" : "/" + client.getNamespace();
        this.address = client.getZookeeperClient().getCurrentConnectionString() + namespace + paths.root();
        this.callTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(
                Math.max(1000, Math.min(client.getZookeeperClient().getConnectionTimeoutMs(), 5000)));
        client.getConnectionStateListenable().addListener(connectionListener);
        if (client.getZookeeperClient().isConnected()) {
            sessionId.compareAndSet(0, currentSessionId());
        }
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public int maxKeyLength() {
        return LockPaths.MAX_KEY_LENGTH;
    }

    @Override
    public LeaseExpiry leaseExpiry() {
        return LeaseExpiry.SESSION;
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        this.leaseListener = listener;
    }

    @Override
    public boolean isLeaseSafe(ZooKeeperLease lease) {
        return !connectionInterrupted && lease.sessionId() == sessionId.get();
    }

    @Override
    public Optional<ZooKeeperLease> tryAcquire(LockRequest request) throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        long callsEnd = deadline.isForever()
                ? Long.MAX_VALUE
                : System.nanoTime() + deadline.remainingNanos() + OVERRUN.toNanos();
        String keyPath = paths.keyPath(key);

        CuratorEvent created = createNode(keyPath, request.owner().value(), key, callsEnd);
        for (int retry = 0; retry < 3 && created.getResultCode() == KeeperException.Code.NONODE.intValue(); retry++) {
            // The server swept an empty parent container between Curator creating it and our node: again.
            created = createNode(keyPath, request.owner().value(), key, callsEnd);
        }
        checkResult(created, key, "creating its lock node under " + keyPath);
        String ownPath = created.getName();
        boolean granted = false;
        try {
            Stat stat = created.getStat() != null ? created.getStat() : readNode(ownPath, null, key, callsEnd);
            if (stat == null) {
                throw failure(key, "its new lock node " + ownPath + " vanished at once: the session expired", null);
            }
            sessionId.compareAndSet(0, stat.getEphemeralOwner());
            Optional<ZooKeeperLease> lease = waitInLine(
                    request, keyPath, ownPath, FencingToken.of(stat.getCzxid()), stat.getEphemeralOwner(), callsEnd);
            granted = lease.isPresent();
            return lease;
        } finally {
            if (!granted) {
                deleteOwnNode(ownPath, Math.min(OVERRUN.toNanos(), Math.max(0, callsEnd - System.nanoTime())));
            }
        }
    }

    /** Creates this attempt's protected ephemeral-sequential node, its parents as containers. */
    private CuratorEvent createNode(String keyPath, String owner, String key, long callsEnd)
            throws InterruptedException {
        PendingCall create = new PendingCall(this::deleteAbandonedNode);
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .inBackground(create)
                    .forPath(LockPaths.lockNodePath(keyPath), owner.getBytes(StandardCharsets.US_ASCII));
        } catch (Exception e) {
            throw failure(key, "could not send the request that creates its lock node", e);
        }
        return answer(create, key, "creating its lock node", callsEnd);
    }

    private Optional<ZooKeeperLease> waitInLine(
            LockRequest request, String keyPath, String ownPath, FencingToken token, long ownerSession, long callsEnd)
            throws InterruptedException {
        String key = request.key();
        Deadline deadline = request.deadline();
        String ownName = ZKPaths.getNodeFromPath(ownPath);
        Waiter waiter = new Waiter();
        waiters.add(waiter);
        try {
            while (true) {
                checkSession(ownerSession, key);
                if (connectionInterrupted) {
                    // Calls would only queue in Curator; wait for the connection to return or the session to end.
                    if (!waiter.await(deadline.remainingNanos())) {
                        throw failure(key, "the connection to ZooKeeper was down when the wait time ran out", null);
                    }
                    continue;
                }
                long askedAt = System.nanoTime();
                List<String> queue = readQueue(keyPath, key, callsEnd);
                int position = queue.indexOf(ownName);
                if (position < 0) {
                    throw failure(
                            key, "its lock node " + ownPath + " disappeared while waiting: the session expired", null);
                }
                if (position == 0) {
                    ZooKeeperLease lease = new ZooKeeperLease(key, ownPath, token, ownerSession, askedAt);
                    leases.add(lease);
                    if (endedSessions.contains(ownerSession)) {
                        leases.remove(lease);
                        checkSession(ownerSession, key);
                    }
                    return Optional.of(lease);
                }
                if (deadline.hasPassed()) {
                    return Optional.empty();
                }
                String watched = ZKPaths.makePath(keyPath, queue.get(watching == Watching.FIRST ? 0 : position - 1));
                if (readNode(watched, waiter, key, callsEnd) == null) {
                    continue; // gone before the watch was set: look again
                }
                if (!waiter.await(deadline.remainingNanos()) && connectionInterrupted) {
                    throw failure(key, "the connection to ZooKeeper was down when the wait time ran out", null);
                }
            }
        } finally {
            waiters.remove(waiter);
        }
    }

    @Override
    public boolean renew(ZooKeeperLease lease, Duration leaseTime) {
        if (lease.sessionId() != sessionId.get()) {
            return false;
        }
        try {
            Stat stat = readNode(lease.path(), null, lease.key(), System.nanoTime() + callTimeoutNanos);
            return stat != null && stat.getEphemeralOwner() == lease.sessionId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(lease.key(), "interrupted while checking its lock node", e);
        }
    }

    @Override
    public boolean release(ZooKeeperLease lease) {
        leases.remove(lease);
        if (lease.sessionId() != sessionId.get()) {
            return false; // the node went with its session
        }
        if (connectionInterrupted) {
            log.warn(
                    "Lock '{}' on zookeeper ({}) was released while the connection is down: its node is deleted when"
                            + " the connection returns, or goes with the session; until then the key stays taken.",
                    lease.key(),
                    address);
            deleteNode(lease.path(), 0);
            return true;
        }
        CuratorEvent deleted = deleteNode(lease.path(), callTimeoutNanos);
        if (deleted == null) {
            log.debug("Delete of lock node {} unanswered; Curator retries it until it succeeds", lease.path());
            return true;
        }
        return deleted.getResultCode() == KeeperException.Code.OK.intValue();
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(connectionListener);
        waiters.forEach(Waiter::wake);
    }

    /** Watch events on lock nodes that reached a waiter (connection events not counted). */
    long watchNotifications() {
        return watchNotifications.sum();
    }

    /** Reads of a key's waiting line (one per wake-up, plus one per attempt). */
    long queueReads() {
        return queueReads.sum();
    }

    private void connectionChanged(ConnectionState state) {
        switch (state) {
            case SUSPENDED, READ_ONLY -> {
                connectionInterrupted = true;
                for (ZooKeeperLease lease : leases) {
                    log.warn(
                            "Lock '{}' on zookeeper ({}) is unsafe: the connection is {}. The hold is valid again if"
                                    + " the connection returns within the session timeout ({} ms), lost otherwise.",
                            lease.key(),
                            address,
                            state,
                            client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
                }
            }
            case LOST -> {
                connectionInterrupted = true;
                long lost = sessionId.getAndSet(0);
                if (lost != 0) {
                    endedSessions.add(lost);
                    endLeases(
                            lease -> lease.sessionId() == lost,
                            "the ZooKeeper session was lost (expired, or not re-established in time)");
                }
            }
            case CONNECTED, RECONNECTED -> {
                long current = currentSessionId();
                if (current != 0) {
                    long previous = sessionId.getAndSet(current);
                    if (previous != 0 && previous != current) {
                        endedSessions.add(previous);
                    }
                    endLeases(lease -> lease.sessionId() != current, "the client reconnected with a new session");
                }
                connectionInterrupted = false;
            }
        }
        waiters.forEach(Waiter::wake);
    }

    private void endLeases(Predicate<ZooKeeperLease> ended, String reason) {
        for (ZooKeeperLease lease : leases) {
            if (ended.test(lease) && leases.remove(lease)) {
                leaseListener.leaseLost(lease, reason);
            }
        }
    }

    private long currentSessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    private void checkSession(long ownerSession, String key) {
        if (endedSessions.contains(ownerSession)) {
            throw failure(key, "the ZooKeeper session was lost while waiting; its place in line went with it", null);
        }
    }

    private List<String> readQueue(String keyPath, String key, long callsEnd) throws InterruptedException {
        queueReads.increment();
        PendingCall read = new PendingCall();
        try {
            client.getChildren().inBackground(read).forPath(keyPath);
        } catch (Exception e) {
            throw failure(key, "could not send the read of its waiting line", e);
        }
        CuratorEvent children = answer(read, key, "reading its waiting line", callsEnd);
        checkResult(children, key, "reading the children of " + keyPath);
        return LockPaths.queue(children.getChildren());
    }

    /** The node's stat, or null when it does not exist; with a watcher, the watch is set only on an existing node. */
    private Stat readNode(String path, Watcher watcher, String key, long callsEnd) throws InterruptedException {
        PendingCall read = new PendingCall();
        try {
            if (watcher == null) {
                client.checkExists().inBackground(read).forPath(path);
            } else {
                // getData, not exists: an exists watch on a node that is already gone would never fire nor be freed.
                client.getData().usingWatcher(watcher).inBackground(read).forPath(path);
            }
        } catch (Exception e) {
            throw failure(key, "could not send the read of " + path, e);
        }
        CuratorEvent result = answer(read, key, "reading " + path, callsEnd);
        if (result.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        checkResult(result, key, "reading " + path);
        return result.getStat();
    }

    private CuratorEvent answer(PendingCall call, String key, String what, long callsEnd) throws InterruptedException {
        CuratorEvent event = call.await(callsEnd == Long.MAX_VALUE ? Long.MAX_VALUE : callsEnd - System.nanoTime());
        if (event == null) {
            throw failure(key, "no answer within the wait time while " + what, null);
        }
        return event;
    }

    private void checkResult(CuratorEvent event, String key, String what) {
        int rc = event.getResultCode();
        if (rc != KeeperException.Code.OK.intValue()) {
            KeeperException.Code code = KeeperException.Code.get(rc);
            throw failure(key, what + " failed with " + code, KeeperException.create(code, event.getPath()));
        }
    }

    /** Removes a node this attempt no longer wants; the delete is guaranteed, the wait for it bounded. */
    private void deleteOwnNode(String path, long waitNanos) {
        CuratorEvent deleted = deleteNode(path, waitNanos);
        if (deleted == null) {
            log.debug("Delete of abandoned lock node {} still pending; Curator retries it", path);
        }
    }

    /** A create the caller stopped waiting for that succeeded after all: its node must not block the key. */
    private void deleteAbandonedNode(CuratorEvent created) {
        if (created.getResultCode() == KeeperException.Code.OK.intValue()) {
            deleteNode(created.getName(), 0);
        }
    }

    private CuratorEvent deleteNode(String path, long waitNanos) {
        PendingCall delete = new PendingCall();
        try {
            client.delete().guaranteed().inBackground(delete).forPath(path);
        } catch (Exception e) {
            log.debug("Could not send the delete of lock node {}", path, e);
            return null;
        }
        return waitNanos <= 0 ? null : delete.awaitUninterruptibly(waitNanos);
    }

    private LockBackendException failure(String key, String problem, Throwable cause) {
        return new LockBackendException(
                "zookeeper",
                address,
                key,
                problem + ". Check that the ZooKeeper ensemble is up and reachable, and the session timeout.",
                cause);
    }

    /** One attempt's wake-up: a watch on the node before it, or a change of the connection. */
    private final class Waiter implements Watcher {

        private final Semaphore signals = new Semaphore(0);

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() != Event.EventType.None) {
                watchNotifications.increment();
            }
            signals.release();
        }

        void wake() {
            signals.release();
        }

        /** True when woken before {@code nanos} passed; drains further wake-ups, which the caller's re-read covers. */
        boolean await(long nanos) throws InterruptedException {
            boolean woken = signals.tryAcquire(nanos, TimeUnit.NANOSECONDS);
            signals.drainPermits();
            return woken;
        }
    }
}
