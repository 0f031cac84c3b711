package dev.distlock.core.spi;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry every backend shares: it turns a {@link LockBackend}'s atomic operations
 * into reentrant {@link FencedLock}s. Per key and JVM it keeps one local gate, so threads
 * of one registry queue locally and only one of them talks to the server; per hold it
 * renews the lease (every third of it) until the hold ends, and marks the hold invalid
 * when the lease is lost.
 *
 * <p>Backends expose one public registry class that extends this one.
 */
public class LockRegistrySupport implements LockRegistry {

    private static final Logger log = LoggerFactory.getLogger(LockRegistrySupport.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Engine<?> engine;

    protected <L extends BackendLease> LockRegistrySupport(LockBackend<L> backend, RegistryOptions options) {
        this.engine = new Engine<>(Objects.requireNonNull(backend, "backend"), Objects.requireNonNull(options));
    }

    @Override
    public FencedLock obtain(String key) {
        engine.checkOpen();
        return new RegistryLock(engine, key, engine.fullKey(key));
    }

    @Override
    public String backend() {
        return engine.backend.name();
    }

    /** The registry's settings. */
    public RegistryOptions options() {
        return engine.options;
    }

    /** Keys this registry currently tracks locally (held or waited for); idle keys are not kept. */
    int trackedKeys() {
        return engine.keys.size();
    }

    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + engine.backend.name() + " at " + engine.backend.address() + "]";
    }

    /** Holds the typed backend so that the rest of the registry needs no type parameter. */
    static final class Engine<L extends BackendLease> {

        final LockBackend<L> backend;
        final RegistryOptions options;
        final String registryId = newRegistryId();
        final ConcurrentHashMap<String, KeyState<L>> keys = new ConcurrentHashMap<>();
        final Set<Hold<L>> holds = ConcurrentHashMap.newKeySet();
        final Watchdog watchdog;
        private final AtomicLong holdSequence = new AtomicLong();
        private volatile boolean closed;

        Engine(LockBackend<L> backend, RegistryOptions options) {
            this.backend = backend;
            this.options = options;
            this.watchdog = new Watchdog(backend.name());
            backend.setLeaseListener(this::leaseLost);
        }

        String describe() {
            return backend.name() + " (" + backend.address() + ")";
        }

        void checkOpen() {
            if (closed) {
                throw new IllegalStateException("The " + backend.name() + " lock registry is closed");
            }
        }

        String fullKey(String key) {
            if (key == null) {
                throw new IllegalArgumentException("Lock key must not be null (" + backend.name() + " backend)");
            }
            if (key.isBlank()) {
                throw new IllegalArgumentException(
                        "Lock key must not be blank, was '" + key + "' (" + backend.name() + " backend)");
            }
            String full = options.keyPrefix() + key;
            int max = backend.maxKeyLength();
            if (full.length() > max) {
                throw new IllegalArgumentException("Lock key '" + abbreviate(key) + "' is " + full.length()
                        + " characters with the key prefix; the " + backend.name() + " backend allows at most "
                        + max + ". Use a shorter key, or a hash of it.");
            }
            return full;
        }

        Optional<LockHandle> acquire(RegistryLock lock, Duration waitTime, Duration leaseTime, boolean renewed)
                throws InterruptedException {
            checkOpen();
            checkDuration("waitTime", waitTime, lock.key, true);
            checkDuration("leaseTime", leaseTime, lock.key, false);
            Deadline deadline = Deadline.after(waitTime);
            Thread current = Thread.currentThread();
            KeyState<L> state = retain(lock.fullKey);
            boolean keepReference = false;
            try {
                Hold<L> own = state.ownedBy(current);
                if (own != null && !own.isValid()) {
                    // Joining would hand out a handle for a key that another owner may hold by now.
                    throw new LockException("Lock '" + lock.key + "' on " + describe()
                            + " is still held by this thread under a lease that was lost (fencing token "
                            + own.lease.token() + "). Release that hold before acquiring the key again.");
                }
                Hold<L> joined = state.joinIfOwner(current);
                if (joined != null) {
                    return Optional.of(new Handle<>(joined, lock.key));
                }
                if (!state.gate.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                boolean gateHeld = true;
                try {
                    OwnerId owner = new OwnerId(registryId, current.getId(), holdSequence.incrementAndGet());
                    Optional<L> lease = backend.tryAcquire(new LockRequest(lock.fullKey, owner, leaseTime, deadline));
                    if (lease.isEmpty()) {
                        return Optional.empty();
                    }
                    Hold<L> hold = new Hold<>(this, state, lock.key, lease.get(), leaseTime, renewed, sessionLeases());
                    state.begin(current, hold);
                    holds.add(hold);
                    gateHeld = false;
                    keepReference = true;
                    startLeaseKeeping(hold);
                    return Optional.of(new Handle<>(hold, lock.key));
                } finally {
                    if (gateHeld) {
                        state.gate.release();
                    }
                }
            } finally {
                if (!keepReference) {
                    unretain(state);
                }
            }
        }

        private boolean sessionLeases() {
            return backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION;
        }

        private void startLeaseKeeping(Hold<L> hold) {
            if (hold.autoRenew && !sessionLeases()) {
                scheduleRenewal(
                        hold, hold.lease.grantRequestedAtNanos() + hold.leaseTime.toNanos() / 3 - System.nanoTime());
            } else if (!hold.autoRenew && sessionLeases()) {
                hold.setTimer(watchdog.schedule(() -> expire(hold), hold.localLeaseLeft(System.nanoTime())));
            }
        }

        private void scheduleRenewal(Hold<L> hold, long delayNanos) {
            hold.setTimer(watchdog.schedule(() -> renew(hold), delayNanos));
        }

        /** Called by the owner thread's {@code unlock()}. */
        void unlock(RegistryLock lock) {
            KeyState<L> state = keys.get(lock.fullKey);
            Hold<L> hold = state == null ? null : state.ownedBy(Thread.currentThread());
            if (hold == null) {
                throw new IllegalMonitorStateException("Lock '" + lock.key + "' on " + describe()
                        + " is not held by thread " + Thread.currentThread().getName());
            }
            hold.releaseOne();
        }

        /** Ends a hold whose count reached zero: frees the key on the server and the local gate. */
        void end(Hold<L> hold) {
            holds.remove(hold);
            try {
                boolean stillHeld = hold.wasLost() ? releaseQuietly(hold) : backend.release(hold.lease);
                if (!stillHeld && !hold.wasLost()) {
                    log.warn(
                            "Lock '{}' on {} had already expired when it was released; another owner may have"
                                    + " held it meanwhile. Use a longer lease or let the watchdog renew it.",
                            hold.key,
                            describe());
                }
            } finally {
                hold.state.gate.release();
                unretain(hold.state);
            }
        }

        private boolean releaseQuietly(Hold<L> hold) {
            log.warn(
                    "Released lock '{}' on {} after its lease was lost; nothing was freed on the server.",
                    hold.key,
                    describe());
            try {
                return backend.release(hold.lease);
            } catch (RuntimeException e) {
                log.debug("Release of lost lock '{}' failed", hold.key, e);
                return false;
            }
        }

        void renew(Hold<L> hold) {
            if (hold.isEnded()) {
                return;
            }
            long start = System.nanoTime();
            long left = hold.localLeaseLeft(start);
            if (left <= 0) {
                hold.markLost("the lease ran out before a renewal succeeded");
                return;
            }
            // A renewal that hangs must not delay the verdict: at the lease's end the hold is lost.
            Future<?> leaseEnd = watchdog.schedule(
                    () -> {
                        if (!hold.isEnded() && hold.localLeaseLeft(System.nanoTime()) <= 0) {
                            hold.markLost("the lease ran out while a renewal got no answer");
                        }
                    },
                    left);
            boolean held;
            try {
                held = backend.renew(hold.lease, hold.leaseTime);
                if (held) {
                    hold.renewedAt(start);
                }
            } catch (RuntimeException e) {
                leaseEnd.cancel(false);
                if (hold.isEnded()) {
                    return;
                }
                if (hold.localLeaseLeft(System.nanoTime()) <= 0) {
                    hold.markLost("the lease ran out while renewal failed: " + e.getMessage());
                } else {
                    log.debug("Renewal of lock '{}' failed; retrying", hold.key, e);
                    long retry = Math.min(hold.leaseTime.toNanos() / 10, TimeUnit.SECONDS.toNanos(1));
                    scheduleRenewal(hold, Math.min(retry, hold.localLeaseLeft(System.nanoTime())));
                }
                return;
            }
            leaseEnd.cancel(false);
            if (hold.isEnded()) {
                return;
            }
            if (held) {
                scheduleRenewal(hold, start + hold.leaseTime.toNanos() / 3 - System.nanoTime());
            } else {
                hold.markLost("the server no longer had it when renewing");
            }
        }

        void expire(Hold<L> hold) {
            if (hold.isEnded()) {
                return;
            }
            hold.markLost("its fixed lease of " + hold.leaseTime + " ran out");
            try {
                backend.release(hold.lease);
            } catch (RuntimeException e) {
                log.debug("Release of expired lock '{}' failed", hold.key, e);
            }
        }

        private void leaseLost(BackendLease lease, String reason) {
            for (Hold<L> hold : holds) {
                if (hold.lease.equals(lease)) {
                    hold.markLost(reason);
                }
            }
        }

        /** Counts a user of the key's local state; the state is dropped when its last user leaves. */
        private KeyState<L> retain(String fullKey) {
            return keys.compute(fullKey, (k, existing) -> {
                KeyState<L> state = existing == null ? new KeyState<>(k) : existing;
                state.references++;
                return state;
            });
        }

        private void unretain(KeyState<L> state) {
            keys.computeIfPresent(state.fullKey, (k, existing) -> {
                if (existing != state) {
                    return existing;
                }
                return --existing.references == 0 ? null : existing;
            });
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            watchdog.close();
            for (Hold<L> hold : holds) {
                hold.forceEnd();
                try {
                    backend.release(hold.lease);
                } catch (RuntimeException e) {
                    log.warn(
                            "Could not release lock '{}' on {} while closing the registry; it frees itself when"
                                    + " its lease ends.",
                            hold.key,
                            describe(),
                            e);
                }
            }
            holds.clear();
            backend.close();
        }

        private static void checkDuration(String name, Duration value, String key, boolean zeroAllowed) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null (lock '" + key + "')");
            }
            if (value.isNegative() || (!zeroAllowed && value.isZero())) {
                throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? "zero or more" : "positive")
                        + ", was " + value + " (lock '" + key + "')");
            }
        }

        private static String abbreviate(String key) {
            return key.length() <= 80 ? key : key.substring(0, 80) + "...";
        }

        private static String newRegistryId() {
            byte[] bytes = new byte[16];
            RANDOM.nextBytes(bytes);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        }
    }
}
