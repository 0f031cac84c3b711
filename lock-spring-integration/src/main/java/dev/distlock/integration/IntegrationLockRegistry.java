package dev.distlock.integration;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's lock registry over a distlock {@link LockRegistry}, so that
 * {@code LockRegistryLeaderInitiator}, aggregators and other Spring Integration components run on
 * any distlock backend. Keys are strings. The locks are distlock's, reentrant, owned by the calling
 * thread, leased (renewed by the watchdog unless a time-to-live is given) and fenced — see
 * {@link #currentToken(String)}.
 *
 * <p>A thread whose hold was lost (force-released, lease ran out) and that then fails to acquire
 * the key holds nothing of it any more, so {@code LockRegistryLeaderInitiator}, which never unlocks
 * after a failed attempt, can lead again later and hand leadership on when it yields or stops.
 *
 * <p>{@link #renewLock(Object, Duration)} extends a fixed lease. A lease the watchdog renews needs
 * no renewal, so renewing one only checks that it is still held. {@link
 * #expireUnusedOlderThan(long)} has nothing to do, since distlock keeps no state for idle keys.
 */
public final class IntegrationLockRegistry
        implements RenewableLockRegistry<DistributedLock>, ExpirableLockRegistry<DistributedLock> {

    private final LockRegistry registry;
    private final Holds holds = new Holds();

    public IntegrationLockRegistry(LockRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * The lock of {@code lockKey}, which must be a {@link String}. Each call returns a new lock
     * object (so compare locks by key, not by identity). All objects of one key share the calling
     * thread's holds, so any of them unlocks what another locked.
     *
     * @throws IllegalArgumentException for another key type, or a key the backend cannot take
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return new IntegrationLock(registry.obtain(key(lockKey)), holds);
    }

    /** The fencing token of the current thread's hold of {@code lockKey}. Empty when it holds none. */
    public Optional<FencingToken> currentToken(String lockKey) {
        return registry.obtain(lockKey).currentToken();
    }

    /**
     * For a fixed lease, extends it by the time-to-live it was taken with. For a lease the watchdog
     * renews, checks that it is still held.
     *
     * @throws IllegalStateException when the current thread does not hold the key, or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        String key = key(lockKey);
        renew(key, held(key).leaseTime());
    }

    /**
     * For a fixed lease, makes it end {@code ttl} from now (and later renewals use {@code ttl}). For
     * a lease the watchdog renews, checks that it is still held.
     *
     * @throws IllegalStateException when the current thread does not hold the key, or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        String key = key(lockKey);
        Holds.Held held = held(key);
        if (held.leaseTime() != null) {
            holds.leaseTime(key, ttl);
        }
        renew(key, held.leaseTime() == null ? null : ttl);
    }

    /** Nothing to expire, since distlock keeps no client state for keys nobody holds or waits for. */
    @Override
    public void expireUnusedOlderThan(long age) {}

    /** The distlock registry underneath. */
    public LockRegistry registry() {
        return registry;
    }

    private void renew(String key, Duration ttl) {
        Holds.Held held = held(key);
        boolean holding = ttl == null ? held.handle().isValid() : held.handle().extend(ttl);
        if (!holding) {
            throw new IllegalStateException("Lock '" + key + "' on " + registry.backend()
                    + " lost its lease before it was renewed; another owner may hold it. Stop the work it"
                    + " guarded and acquire it again.");
        }
    }

    private Holds.Held held(String key) {
        Holds.Held held = holds.latest(key);
        if (held == null) {
            throw new IllegalStateException("Lock '" + key + "' on " + registry.backend() + " is not held by thread "
                    + Thread.currentThread().getName() + "; acquire it before renewing");
        }
        return held;
    }

    private static String key(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("distlock lock keys are strings, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName() + " " + lockKey));
        }
        return key;
    }

    @Override
    public String toString() {
        return "IntegrationLockRegistry[" + registry + "]";
    }
}
