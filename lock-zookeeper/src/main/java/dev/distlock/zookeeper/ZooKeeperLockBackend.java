package dev.distlock.zookeeper;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHolder;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.LeaseListener;
import dev.distlock.core.spi.LockBackend;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WriterGrace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as ephemeral-sequential nodes under {@code root/<encoded key>} ({@link LockQueue}). The token is the owner
 * node's {@code czxid}, which rises across the whole ensemble. The lease is the session ({@link SessionTracker}), and
 * {@link #renew} confirms that the session and the node are still there. Every server call is bounded ({@link
 * ZooKeeperCalls}), so an attempt ends at most {@link #overrun()} past its wait time, even against a silent server.
 */
final class ZooKeeperLockBackend implements LockBackend<ZooKeeperLease> {

    /** The key of a failure that concerns no one lock (a check of the connection). */
    private static final String NO_KEY = null;

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockBackend.class);

    private final CuratorFramework client;
    private final LockPaths paths;
    private final ZooKeeperCalls calls;
    private final SessionTracker session;
    private final LockQueue queue;
    private final long callTimeoutNanos;

    /** The backend with the plain lock's rule, {@link QueueRule#MUTEX}. */
    ZooKeeperLockBackend(CuratorFramework client, LockPaths paths) {
        this(client, paths, QueueRule.MUTEX, RegistryOptions.DEFAULT_ANSWER_BUDGET);
    }

    ZooKeeperLockBackend(CuratorFramework client, LockPaths paths, QueueRule rule) {
        this(client, paths, rule, RegistryOptions.DEFAULT_ANSWER_BUDGET);
    }

    /**
     * @param answerBudget how far past its wait time an attempt may run to finish the calls it started (contract 8).
     *     Past it the attempt fails with {@link LockBackendException}, which bounds a caller during a silent partition
     */
    ZooKeeperLockBackend(CuratorFramework client, LockPaths paths, QueueRule rule, Duration answerBudget) {
        this.client = client;
        this.paths = paths;
        String namespace =
                client.getNamespace() == null || client.getNamespace().isEmpty() ? "" : "/" + client.getNamespace();
        String address = client.getZookeeperClient().getCurrentConnectionString() + namespace + paths.root();
        this.callTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(
                Math.max(1000, Math.min(client.getZookeeperClient().getConnectionTimeoutMs(), 5000)));
        this.calls = new ZooKeeperCalls(client, address, answerBudget);
        this.session = new SessionTracker(client, address);
        this.queue = new LockQueue(paths, calls, session, rule);
    }

    private ZooKeeperLockBackend(ZooKeeperLockBackend shared) {
        this.client = shared.client;
        this.paths = shared.paths;
        this.callTimeoutNanos = shared.callTimeoutNanos;
        this.calls = shared.calls;
        this.session = new SessionTracker(client, calls.address());
        this.queue = new LockQueue(paths, calls, session, QueueRule.MUTEX);
    }

    /**
     * Another backend on this one's client and calls, with a session tracker of its own. Its lost holds go to the
     * engine it is given to.
     */
    ZooKeeperLockBackend sibling() {
        return new ZooKeeperLockBackend(this);
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String address() {
        return calls.address();
    }

    /** How far past its wait time an attempt may run now, the answer budget. */
    Duration overrun() {
        return Duration.ofNanos(calls.overrunNanos());
    }

    String rootPath() {
        return paths.root();
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
    public Duration sessionLeaseTime() {
        return session.sessionTimeout();
    }

    @Override
    public void setLeaseListener(LeaseListener listener) {
        session.setLeaseListener(listener);
    }

    @Override
    public boolean isLeaseSafe(ZooKeeperLease lease) {
        return session.isSafe(lease);
    }

    @Override
    public Optional<ZooKeeperLease> tryAcquire(LockRequest request) throws InterruptedException {
        return queue.tryAcquire(request);
    }

    /** An attempt in another queue than the key's plain lock, under {@code rule}, with this backend's session. */
    Optional<ZooKeeperLease> tryAcquire(LockRequest request, String keyPath, QueueRule rule)
            throws InterruptedException {
        return queue.tryAcquire(request, keyPath, rule);
    }

    /** A writer's grace before it joins the queue under {@code keyPath} ({@link LockQueue#awaitEmptyQueue}). */
    boolean awaitEmptyQueue(LockRequest request, String keyPath, WriterGrace grace) throws InterruptedException {
        return queue.awaitEmptyQueue(request, keyPath, grace);
    }

    /**
     * A cheap check that the hold is still there, one read of the owner's node on the current session. False when the
     * node is gone or belongs to another session. Throws while the connection is down, so the registry's bound decides,
     * as the session may still come back.
     */
    @Override
    public boolean renew(ZooKeeperLease lease, Duration leaseTime) {
        if (session.hasEnded(lease.sessionId())) {
            return false;
        }
        if (session.isInterrupted() || lease.sessionId() != session.sessionId()) {
            throw calls.failure(lease.key(), "cannot confirm its hold while the connection to ZooKeeper is down");
        }
        try {
            Stat stat = calls.stat(lease.path(), lease.key(), System.nanoTime() + callTimeoutNanos);
            return stat != null && stat.getEphemeralOwner() == lease.sessionId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.failure(lease.key(), "interrupted while confirming its lock node", e);
        }
    }

    @Override
    public boolean release(ZooKeeperLease lease) {
        session.untrack(lease);
        if (lease.sessionId() != session.sessionId()) {
            return false; // the node went with its session
        }
        if (session.isInterrupted()) {
            log.warn(
                    "Lock '{}' on zookeeper ({}) was released while the connection is down: its node is deleted when"
                            + " the connection returns, or goes with the session; until then the key stays taken.",
                    lease.key(),
                    address());
            calls.delete(lease.path(), 0);
            return true;
        }
        // No wait time of its own, so it waits at most the answer budget (contract 8). Curator retries an unanswered
        // delete in the background.
        CuratorEvent deleted = calls.delete(lease.path(), Math.min(callTimeoutNanos, calls.overrunNanos()));
        if (deleted == null) {
            log.debug("Delete of lock node {} unanswered; Curator retries it until it succeeds", lease.path());
            return true;
        }
        return deleted.getResultCode() == KeeperException.Code.OK.intValue();
    }

    /** The owner of the key's first node in the queue, with its recorded holder description and its {@code czxid}. */
    @Override
    public Optional<LockHolder> holderOf(String key) {
        return bounded(key, "reading who holds it", end -> {
            String keyPath = paths.keyPath(key);
            syncBeforeReading(key, keyPath);
            for (String node : calls.queue(keyPath, key, end)) {
                CuratorEvent read = calls.data(ZKPaths.makePath(keyPath, node), key, end);
                if (read != null) {
                    String holder = new String(read.getData(), StandardCharsets.US_ASCII);
                    return Optional.of(new LockHolder(
                            key, holder, FencingToken.of(read.getStat().getCzxid()), Optional.empty()));
                }
            }
            return Optional.empty();
        });
    }

    /**
     * Another client's hold may not have reached the ensemble member this session reads from. A sync on the same
     * session puts the reads after it behind the leader's state, as ZooKeeper answers a session in order.
     */
    private void syncBeforeReading(String key, String keyPath) {
        try {
            client.sync().forPath(keyPath);
        } catch (Exception e) {
            throw calls.failure(key, "the sync before reading the key's line failed", e);
        }
    }

    /** Deletes the holder's node. The next hold gets a node with a larger {@code czxid}. */
    @Override
    public boolean forceRelease(String key) {
        return bounded(key, "force-releasing it", end -> {
            String keyPath = paths.keyPath(key);
            syncBeforeReading(key, keyPath);
            for (String node : calls.queue(keyPath, key, end)) {
                CuratorEvent deleted = calls.delete(ZKPaths.makePath(keyPath, node), end - System.nanoTime());
                if (deleted == null) {
                    throw calls.failure(key, "no answer in time to the delete of the holder's node " + node);
                }
                if (deleted.getResultCode() == KeeperException.Code.OK.intValue()) {
                    return true;
                }
            }
            return false;
        });
    }

    /** The session is established and the root path can be read, within {@code timeout}. */
    @Override
    public void verify(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        try {
            if (!client.getZookeeperClient().isConnected()
                    && !client.blockUntilConnected((int) Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                throw new LockBackendException(
                        name(),
                        address(),
                        NO_KEY,
                        "no ZooKeeper session within " + timeout + ". Check that the connect string names running"
                                + " servers that this host can reach.");
            }
            calls.stat(paths.root(), paths.root(), end);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException(name(), address(), NO_KEY, "interrupted while checking the connection", e);
        }
    }

    @Override
    public void close() {
        session.close();
    }

    private <T> T bounded(String key, String what, Call<T> call) {
        try {
            return call.run(System.nanoTime() + callTimeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.failure(key, "interrupted while " + what, e);
        }
    }

    @FunctionalInterface
    private interface Call<T> {
        T run(long callsEnd) throws InterruptedException;
    }
}
