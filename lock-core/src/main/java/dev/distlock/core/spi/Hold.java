package dev.distlock.core.spi;

import java.time.Duration;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One distributed hold: a granted lease, shared by the reentrant acquisitions of its owner.
 * It keeps the local view of the lease (counted from before the grant request, so it never
 * outlives the server's) and whether the lease is known to be lost.
 */
final class Hold<L extends BackendLease> {

    private static final Logger log = LoggerFactory.getLogger(Hold.class);

    final LockRegistrySupport.Engine<L> engine;
    final KeyState<L> state;
    final String key;
    final L lease;
    final Duration leaseTime;
    final boolean autoRenew;
    private final boolean leaseEndsWithSession;

    /** Reentrant holds; guarded by {@code state}'s monitor. */
    int count = 1;

    private volatile boolean ended;
    private volatile boolean lost;
    private volatile long leaseEndNanos;
    private Future<?> timer;

    Hold(
            LockRegistrySupport.Engine<L> engine,
            KeyState<L> state,
            String key,
            L lease,
            Duration leaseTime,
            boolean autoRenew,
            boolean leaseEndsWithSession) {
        this.engine = engine;
        this.state = state;
        this.key = key;
        this.lease = lease;
        this.leaseTime = leaseTime;
        this.autoRenew = autoRenew;
        this.leaseEndsWithSession = leaseEndsWithSession;
        this.leaseEndNanos = lease.grantRequestedAtNanos() + leaseTime.toNanos();
    }

    boolean isValid() {
        return !ended && !lost && (localLeaseLeft(System.nanoTime()) > 0) && engine.backend.isLeaseSafe(lease);
    }

    boolean isEnded() {
        return ended;
    }

    boolean wasLost() {
        return lost;
    }

    int count() {
        synchronized (state) {
            return ended ? 0 : count;
        }
    }

    /** Nanoseconds the lease is known to last; a session lease renewed by its backend lasts while the session does. */
    long localLeaseLeft(long now) {
        if (leaseEndsWithSession && autoRenew) {
            return Long.MAX_VALUE;
        }
        return leaseEndNanos - now;
    }

    void renewedAt(long requestedAtNanos) {
        leaseEndNanos = requestedAtNanos + leaseTime.toNanos();
    }

    synchronized void setTimer(Future<?> next) {
        if (ended) {
            next.cancel(false);
        } else {
            timer = next;
        }
    }

    private synchronized void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    synchronized void markLost(String reason) {
        if (ended || lost) {
            return;
        }
        lost = true;
        cancelTimer();
        log.warn(
                "Lock '{}' on {} lost its lease: {}. Its holder must stop writing; writes carrying fencing token {}"
                        + " can be refused.",
                key,
                engine.describe(),
                reason,
                lease.token());
    }

    /** Releases one reentrant hold; the last one ends the hold on the server. */
    void releaseOne() {
        synchronized (state) {
            if (ended) {
                return;
            }
            if (--count > 0) {
                return;
            }
            ended = true;
            state.clear(this);
        }
        cancelTimer();
        engine.end(this);
    }

    /** Ends the hold without a server call, for a registry that is closing. */
    void forceEnd() {
        synchronized (state) {
            if (ended) {
                return;
            }
            ended = true;
            state.clear(this);
        }
        cancelTimer();
        state.gate.release();
    }
}
