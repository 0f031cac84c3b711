package dev.distlock.test;

import dev.distlock.core.FencingToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Moves a {@link TestLockServer}'s clock on, step by step. Watchdog holds are renewed every third
 * of their lease (a renewal during an outage fails and is tried again a second later), and leases
 * that end meanwhile end, their holders told at once.
 */
final class ClockSteps {

    private static final long RENEWAL_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ServerState state;
    private final Faults faults;

    ClockSteps(ServerState state, Faults faults) {
        this.state = state;
        this.faults = faults;
    }

    /** @param backends the registries on the server, whose watchdog holds are renewed on the way */
    void advance(Duration time, List<ControlledBackend> backends) {
        if (time.isNegative() || time.isZero()) {
            throw new IllegalArgumentException("The test clock moves forward only; got " + time);
        }
        Set<FencingToken> renewed = new HashSet<>();
        for (ControlledBackend backend : backends) {
            renewed.addAll(backend.watchdogTokens());
        }
        List<ServerHold> lost = new ArrayList<>();
        state.lock.lock();
        try {
            long target = state.now() + time.toNanos();
            for (Due due = nextDue(target, renewed); due != null; due = nextDue(target, renewed)) {
                if (due.renewal()) {
                    renewOnClock(due.hold(), due.at());
                } else {
                    expire(due.hold(), lost);
                }
            }
            state.changed.signalAll();
        } finally {
            state.lock.unlock();
        }
        for (ServerHold hold : lost) {
            hold.backend.leaseLost(hold.lease, "its lease ran out on the test clock without a renewal");
        }
    }

    /** A renewal or an expiry due on the clock. */
    private record Due(ServerHold hold, long at, boolean renewal) {}

    /**
     * Moves the clock to the first renewal or expiry before {@code target} and returns it, or to {@code target} and
     * returns null when none is due. Under the state's lock.
     */
    private Due nextDue(long target, Set<FencingToken> renewed) {
        ServerHold next = null;
        long at = target;
        boolean renewal = false;
        for (ServerHold hold : state.holds.values()) {
            boolean watchdog = hold.backend != null && renewed.contains(hold.lease.token());
            if (watchdog && hold.nextRenewalAt - at < 0) {
                next = hold;
                at = hold.nextRenewalAt;
                renewal = true;
            }
            if (!hold.forever && hold.expiresAt - at <= 0) {
                next = hold;
                at = hold.expiresAt;
                renewal = false;
            }
        }
        state.clock.moveTo(at);
        return next == null ? null : new Due(next, at, renewal);
    }

    /** Frees {@code hold}, whose time ran out. This application's is added to {@code lost}. Under the state's lock. */
    private void expire(ServerHold hold, List<ServerHold> lost) {
        state.free(hold.fullKey);
        if (hold.backend == null) {
            state.record(
                    LockEvent.Kind.FREED_ELSEWHERE,
                    hold.appKey,
                    FencingToken.of(hold.token),
                    hold.owner,
                    "its time ran out");
        } else {
            state.record(
                    LockEvent.Kind.LOST,
                    hold.appKey,
                    hold.lease.token(),
                    hold.owner,
                    "the lease ran out on the test clock");
            lost.add(hold);
        }
    }

    private void renewOnClock(ServerHold hold, long at) {
        if (faults.fails(at)) {
            hold.nextRenewalAt = at + Math.min(RENEWAL_RETRY_NANOS, hold.leaseNanos / 10);
            state.record(
                    LockEvent.Kind.BACKEND_FAILED,
                    hold.appKey,
                    hold.lease.token(),
                    hold.owner,
                    "renewal failed: backend unreachable (simulated)");
            return;
        }
        hold.leasedFor(at, hold.leaseNanos);
        state.record(LockEvent.Kind.RENEWED, hold.appKey, hold.lease.token(), hold.owner, "by the watchdog");
    }
}
