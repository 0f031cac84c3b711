package dev.distlock.test;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The simulated lock server behind controlled registries. It keeps owners, leases and tokens on its own
 * clock. Registries built over one server exclude each other like instances sharing a real server.
 *
 * <p>The clock is the JVM's monotonic clock plus whatever the test {@linkplain #advance advanced}
 * it by, so time passes as usual and a test jumps ahead instead of sleeping. Leases end on this
 * clock. Waits ({@code tryAcquire(wait)}) are measured in real time, so a test never blocks on a
 * clock that nobody advances.
 */
public final class TestLockServer {

    private final ServerState state = new ServerState();
    // The state's parts that every operation here uses, under their usual names.
    private final ReentrantLock lock = state.lock;
    private final Condition changed = state.changed;
    private final Map<String, ServerHold> holds = state.holds;
    private final List<ControlledBackend> backends = new CopyOnWriteArrayList<>();
    private final Faults faults = new Faults();
    private final ClockSteps clockSteps = new ClockSteps(state, faults);
    private final MemoryLockStore readWrite = new MemoryLockStore();

    /** The server's clock in nanoseconds, the JVM's monotonic clock plus what tests advanced it by. */
    long now() {
        return state.now();
    }

    /** How long the server has run on its clock. */
    Duration elapsed() {
        return state.elapsed();
    }

    /** The read/write locks' side, kept by the in-memory backend's store (not steered by the control). */
    MemoryLockStore readWrite() {
        return readWrite;
    }

    Faults faults() {
        return faults;
    }

    LockHistory history() {
        return state.history;
    }

    void attach(ControlledBackend backend) {
        backends.add(backend);
    }

    void detach(ControlledBackend backend) {
        backends.remove(backend);
    }

    /** Takes the key for the request's owner, waiting (in real time) until its deadline. Null when that passed. */
    ControlledLease tryAcquire(ControlledBackend backend, String appKey, LockRequest request)
            throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                // Read each time the key is looked at. A waiter's lease counts from its grant, not from its call.
                long requestedAt = System.nanoTime();
                long now = now();
                ServerHold hold = holds.get(request.key());
                if (hold == null || !hold.live(now)) {
                    long token = state.nextToken();
                    ControlledLease lease = new ControlledLease(
                            request.key(), request.owner().value(), FencingToken.of(token), requestedAt);
                    ServerHold taken = new ServerHold(
                            new ServerHold.Held(request.key(), appKey, lease.owner(), request.holder(), token),
                            backend,
                            lease);
                    taken.leasedFor(now, request.leaseTime().toNanos());
                    holds.put(request.key(), taken);
                    record(LockEvent.Kind.ACQUIRED, appKey, lease.token(), lease.owner(), "");
                    return lease;
                }
                long remaining = request.deadline().remainingNanos();
                if (remaining <= 0) {
                    return null;
                }
                // Woken by a release or a jump of the clock. Bounded by the holder's lease otherwise.
                changed.awaitNanos(hold.forever ? remaining : Math.min(remaining, hold.expiresAt - now));
            }
        } finally {
            lock.unlock();
        }
    }

    boolean renew(ControlledLease lease, Duration leaseTime) {
        lock.lock();
        try {
            ServerHold hold = holds.get(lease.key());
            long now = now();
            if (hold == null || !hold.owner.equals(lease.owner()) || !hold.live(now)) {
                return false;
            }
            hold.leasedFor(now, leaseTime.toNanos());
            record(LockEvent.Kind.RENEWED, hold.appKey, hold.lease.token(), hold.owner, "lease " + leaseTime);
            return true;
        } finally {
            lock.unlock();
        }
    }

    boolean release(ControlledLease lease) {
        lock.lock();
        try {
            ServerHold hold = holds.get(lease.key());
            if (hold == null || !hold.owner.equals(lease.owner())) {
                return false;
            }
            boolean live = hold.live(now());
            state.free(lease.key());
            if (live) {
                record(LockEvent.Kind.RELEASED, hold.appKey, lease.token(), lease.owner(), "");
            }
            return live;
        } finally {
            lock.unlock();
        }
    }

    Optional<LockHolder> holderOf(String fullKey) {
        lock.lock();
        try {
            ServerHold hold = holds.get(fullKey);
            long now = now();
            if (hold == null || !hold.live(now)) {
                return Optional.empty();
            }
            Optional<Duration> left =
                    hold.forever ? Optional.empty() : Optional.of(Duration.ofNanos(hold.expiresAt - now));
            return Optional.of(new LockHolder(fullKey, hold.holder, FencingToken.of(hold.token), left));
        } finally {
            lock.unlock();
        }
    }

    /** An operator's force-release. The holder learns of it at its next renewal, as on a real server. */
    boolean forceRelease(String fullKey) {
        lock.lock();
        try {
            ServerHold hold = holds.get(fullKey);
            if (hold == null || !hold.live(now())) {
                return false;
            }
            state.free(fullKey);
            record(LockEvent.Kind.LOST, hold.appKey, FencingToken.of(hold.token), hold.owner, "force-released");
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the lease of this application's hold of {@code fullKey} now, and tells its registry at once. */
    Optional<FencingToken> loseLease(String fullKey, String reason) {
        ServerHold hold;
        lock.lock();
        try {
            hold = holds.get(fullKey);
            if (hold == null || hold.backend == null || !hold.live(now())) {
                return Optional.empty();
            }
            state.free(fullKey);
            record(LockEvent.Kind.LOST, hold.appKey, hold.lease.token(), hold.owner, reason);
        } finally {
            lock.unlock();
        }
        hold.backend.leaseLost(hold.lease, reason);
        return Optional.of(hold.lease.token());
    }

    /** Takes {@code fullKey} for another instance until released, or for {@code time} on the clock when present. */
    FencingToken holdElsewhere(String fullKey, String appKey, String holder, Optional<Duration> time) {
        lock.lock();
        try {
            long now = now();
            ServerHold hold = holds.get(fullKey);
            if (hold != null && hold.live(now)) {
                throw new IllegalStateException("Lock '" + appKey + "' is held by " + hold.holder + " (token "
                        + hold.token + "); release it, or lose its lease with loseLease, before another instance"
                        + " takes it");
            }
            long token = state.nextToken();
            ServerHold taken =
                    ServerHold.elsewhere(new ServerHold.Held(fullKey, appKey, "elsewhere:" + holder, holder, token));
            if (time.isEmpty()) {
                taken.forever = true;
            } else {
                taken.expiresAt = now + time.get().toNanos();
            }
            holds.put(fullKey, taken);
            record(LockEvent.Kind.HELD_ELSEWHERE, appKey, FencingToken.of(token), taken.owner, holder);
            return FencingToken.of(token);
        } finally {
            lock.unlock();
        }
    }

    boolean releaseElsewhere(String fullKey) {
        lock.lock();
        try {
            ServerHold hold = holds.get(fullKey);
            if (hold == null || hold.backend != null || !hold.live(now())) {
                return false;
            }
            state.free(fullKey);
            record(LockEvent.Kind.FREED_ELSEWHERE, hold.appKey, FencingToken.of(hold.token), hold.owner, "released");
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves the clock on by {@code time}, step by step. Watchdog holds are renewed every third of
     * their lease, and leases that end meanwhile end, their holders told at once ({@link ClockSteps}).
     */
    void advance(Duration time) {
        clockSteps.advance(time, backends);
    }

    /** Empties the server. Other instances' holds go, and this application's holds are lost. */
    void clear() {
        List<ServerHold> lost = new ArrayList<>();
        lock.lock();
        try {
            long now = now();
            for (ServerHold hold : holds.values()) {
                if (hold.backend != null && hold.live(now)) {
                    lost.add(hold);
                }
            }
            holds.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (ServerHold hold : lost) {
            hold.backend.leaseLost(hold.lease, "the test's lock control was reset");
        }
    }

    void record(LockEvent.Kind kind, String appKey, FencingToken token, String owner, String detail) {
        state.record(kind, appKey, token, owner, detail);
    }

    /** Records a call that concerned no hold. No token, no owner. */
    void recordCall(LockEvent.Kind kind, String appKey, String detail) {
        state.recordCall(kind, appKey, detail);
    }
}
