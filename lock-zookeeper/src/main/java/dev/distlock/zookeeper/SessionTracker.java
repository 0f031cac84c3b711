package dev.distlock.zookeeper;

import dev.distlock.core.spi.LeaseListener;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client's session means for the holds on it. Lock nodes are ephemeral, so a hold lasts as long as the session
 * that created it. While the connection is suspended the holds are unsafe, and when the session is lost (or the client
 * comes back on a new one) they are lost. Waiting attempts are woken on every change, so they check again at once.
 */
final class SessionTracker implements ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(SessionTracker.class);

    private final CuratorFramework client;
    private final String address;
    private final Set<ZooKeeperLease> leases = ConcurrentHashMap.newKeySet();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private final AtomicLong sessionId = new AtomicLong();
    /** Sessions known to have ended, whose nodes are gone. One entry per session loss, so it stays tiny. */
    private final Set<Long> endedSessions = ConcurrentHashMap.newKeySet();

    private volatile boolean interrupted;
    private volatile LeaseListener leaseListener = (lease, reason) -> {};

    SessionTracker(CuratorFramework client, String address) {
        this.client = client;
        this.address = address;
        client.getConnectionStateListenable().addListener(this);
        if (client.getZookeeperClient().isConnected()) {
            sessionId.compareAndSet(0, currentSessionId());
        }
    }

    void setLeaseListener(LeaseListener listener) {
        this.leaseListener = listener;
    }

    /** The session the client is on now, 0 while it has none. */
    long sessionId() {
        return sessionId.get();
    }

    /** Takes the session a node was created on as the current one, if none is known yet. */
    void adopt(long session) {
        sessionId.compareAndSet(0, session);
    }

    /** True while the connection is suspended or lost, when calls would only queue in Curator. */
    boolean isInterrupted() {
        return interrupted;
    }

    boolean hasEnded(long session) {
        return endedSessions.contains(session);
    }

    /** False while the connection is down or the lease's session is not the current one. No I/O. */
    boolean isSafe(ZooKeeperLease lease) {
        return !interrupted && lease.sessionId() == sessionId.get();
    }

    /**
     * How long the server keeps the session without hearing from the client, the negotiated timeout. Before a session
     * is negotiated the connection timeout stands in. It is usually shorter, so a bound built on it errs on the safe
     * side.
     */
    Duration sessionTimeout() {
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        return Duration.ofMillis(
                negotiated > 0 ? negotiated : client.getZookeeperClient().getConnectionTimeoutMs());
    }

    /** Starts tracking a granted lease. False, and not tracked, when its session ended meanwhile. */
    boolean track(ZooKeeperLease lease) {
        leases.add(lease);
        if (hasEnded(lease.sessionId())) {
            leases.remove(lease);
            return false;
        }
        return true;
    }

    void untrack(ZooKeeperLease lease) {
        leases.remove(lease);
    }

    void addWaiter(Waiter waiter) {
        waiters.add(waiter);
    }

    void removeWaiter(Waiter waiter) {
        waiters.remove(waiter);
    }

    @Override
    public void stateChanged(CuratorFramework changed, ConnectionState state) {
        switch (state) {
            case SUSPENDED, READ_ONLY -> {
                interrupted = true;
                for (ZooKeeperLease lease : leases) {
                    log.warn(
                            "Lock '{}' on zookeeper ({}) is unsafe: the connection is {}. The hold is valid again if"
                                    + " the connection returns within the session timeout ({} ms), lost otherwise.",
                            lease.key(),
                            address,
                            state,
                            sessionTimeout().toMillis());
                }
            }
            case LOST -> {
                interrupted = true;
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
                interrupted = false;
            }
        }
        waiters.forEach(Waiter::wake);
    }

    void close() {
        client.getConnectionStateListenable().removeListener(this);
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
}
