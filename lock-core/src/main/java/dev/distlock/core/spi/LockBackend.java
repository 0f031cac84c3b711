package dev.distlock.core.spi;

import dev.distlock.core.LockBackendException;
import java.time.Duration;
import java.util.Optional;

/**
 * The atomic operations a backend implements. {@link LockRegistrySupport} builds everything else on them
 * (reentrancy, the local gate per key, the watchdog, lease-loss marking).
 *
 * <p>Calls for one key come from one thread of a registry at a time, because the registry's local gate queues the
 * others. Every method may throw {@link LockBackendException} when the server cannot be reached or answers an
 * error.
 *
 * @param <L> the backend's lease type
 */
public interface LockBackend<L extends BackendLease> extends AutoCloseable {

    /** "redis", "zookeeper", "etcd", "jdbc" or "memory". */
    String name();

    /** Where the server is, for messages (host:port, JDBC URL without credentials, ...). */
    String address();

    /** The longest full key (prefix included) in characters that this backend accepts. */
    int maxKeyLength();

    /**
     * Takes the key for {@code request.owner()} if it is free or its lease has expired,
     * waiting until {@code request.deadline()} for it to come free. Waits are woken by the
     * backend (pub/sub, watch, ...) or, where it has no such means, by capped back-off.
     *
     * @return the lease, or empty when the deadline passed. A backend that queued something on the server for this
     *     attempt withdraws it before returning empty or throwing.
     * @throws InterruptedException when the waiting thread is interrupted
     */
    Optional<L> tryAcquire(LockRequest request) throws InterruptedException;

    /**
     * Extends the lease by {@code leaseTime} from now, if {@code lease}'s owner still holds it.
     *
     * @return false when the lock is no longer held by that owner
     */
    boolean renew(L lease, Duration leaseTime);

    /**
     * Releases the lock if {@code lease}'s owner still holds it, and wakes a waiter. The engine
     * calls it on a background thread for holds that are already lost.
     *
     * @return false when the owner no longer held it because the lease had expired. The next owner's lock is never
     *     touched.
     */
    boolean release(L lease);

    /**
     * How leases end without renewal. With {@link LeaseExpiry#SERVER} (Redis, etcd, JDBC, memory) the server drops
     * the lock after the lease time, and the registry renews it. With {@link LeaseExpiry#SESSION} (ZooKeeper) the
     * lock lives as long as the client session. The registry does not renew it, and ends fixed leases by releasing
     * them itself.
     */
    default LeaseExpiry leaseExpiry() {
        return LeaseExpiry.SERVER;
    }

    /** A cheap local check without I/O. False while the backend knows the lease may be gone (connection suspended). */
    default boolean isLeaseSafe(L lease) {
        return true;
    }

    /**
     * How long a lease of a {@link LeaseExpiry#SESSION} backend is known to last after a successful {@link #renew},
     * which confirms that the session and the lock are still there. Normally the session timeout. The engine confirms
     * every hold, fixed leases too, every third of it. It treats a hold as lost when no confirmation succeeded within
     * it, so a holder paused past its session turns invalid the moment it resumes. Unused by {@link
     * LeaseExpiry#SERVER} backends.
     */
    default Duration sessionLeaseTime() {
        throw new UnsupportedOperationException(name() + " backend has no session leases");
    }

    /**
     * Who holds {@code key} (the full key) on the server right now, whichever registry or instance that is. Empty
     * when nobody does.
     */
    default Optional<dev.distlock.core.LockHolder> holderOf(String key) {
        throw new UnsupportedOperationException("The " + name() + " backend cannot tell who holds a key");
    }

    /**
     * {@link #holderOf} in two steps. A backend that can send the read without waiting for its answer sends it now and
     * waits in {@code get()}. By default the read happens in {@code get()}.
     */
    default java.util.function.Supplier<Optional<dev.distlock.core.LockHolder>> holderOfLater(String key) {
        return () -> holderOf(key);
    }

    /**
     * Whether a zero-wait take of {@code key} can be made conditional on {@code guardKey} being free, both checked in
     * one atomic step on the server ({@link LockRequest#guardKey}). By default no.
     */
    default boolean guardsTakes(String key, String guardKey) {
        return false;
    }

    /**
     * Removes the lock on {@code key} (full key) whoever holds it, for an operator evicting a
     * crashed or stuck holder. The next holder still gets a larger fencing token.
     *
     * @return true when a lock was there and was removed
     */
    default boolean forceRelease(String key) {
        throw new UnsupportedOperationException("The " + name() + " backend cannot force-release a key");
    }

    /**
     * One cheap call that proves the backend is reachable and usable (table present, scripts
     * loadable, session established), bounded by {@code timeout}.
     *
     * @throws dev.distlock.core.LockBackendException naming the address and what to do, when not
     */
    default void verify(Duration timeout) {}

    /** Called once by the registry before first use. */
    default void setLeaseListener(LeaseListener listener) {}

    /** Frees what the backend itself opened; resources the application passed in stay open. */
    @Override
    default void close() {}

    /** How leases end without renewal, as {@link #leaseExpiry()} says. */
    enum LeaseExpiry {
        SERVER,
        SESSION
    }
}
