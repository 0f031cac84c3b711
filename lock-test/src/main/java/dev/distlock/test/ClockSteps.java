package dev.distlock.test;

import dev.distlock.core.FencingToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Moves a {@link TestLockServer}'s clock on, step by step: watchdog holds are renewed every third
 * of their lease (a renewal during an outage fails and is tried again a second later), and leases
 * that end meanwhile end, their holders told at once.
 */
final class ClockSteps {

    private static final long RENEWAL_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ServerSlots state;
    private final Faults faults;

    ClockSteps(ServerSlots state, Faults faults) {
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
        List<ServerSlot> lost = new ArrayList<>();
        state.lock.lock();
        try {
            long target = state.now() + time.toNanos();
            while (true) {
                ServerSlot next = null;
                long at = target;
                boolean renewal = false;
                for (ServerSlot slot : state.slots.values()) {
                    boolean watchdog = slot.backend != null && renewed.contains(slot.lease.token());
                    if (watchdog && slot.nextRenewalAt - at < 0) {
                        next = slot;
                        at = slot.nextRenewalAt;
                        renewal = true;
                    }
                    if (!slot.forever && slot.expiresAt - at <= 0) {
                        next = slot;
                        at = slot.expiresAt;
                        renewal = false;
                    }
                }
                state.clock.moveTo(at);
                if (next == null) {
                    break;
                }
                if (renewal) {
                    renewOnClock(next, at);
                } else {
                    state.free(next.fullKey);
                    if (next.backend == null) {
                        state.record(
                                LockEvent.Kind.FREED_ELSEWHERE,
                                next.appKey,
                                FencingToken.of(next.token),
                                next.owner,
                                "its time ran out");
                    } else {
                        state.record(
                                LockEvent.Kind.LOST,
                                next.appKey,
                                next.lease.token(),
                                next.owner,
                                "the lease ran out on the test clock");
                        lost.add(next);
                    }
                }
            }
            state.changed.signalAll();
        } finally {
            state.lock.unlock();
        }
        for (ServerSlot slot : lost) {
            slot.backend.leaseLost(slot.lease, "its lease ran out on the test clock without a renewal");
        }
    }

    private void renewOnClock(ServerSlot slot, long at) {
        if (faults.fails(at)) {
            slot.nextRenewalAt = at + Math.min(RENEWAL_RETRY_NANOS, slot.leaseNanos / 10);
            state.record(
                    LockEvent.Kind.BACKEND_FAILED,
                    slot.appKey,
                    slot.lease.token(),
                    slot.owner,
                    "renewal failed: backend unreachable (simulated)");
            return;
        }
        slot.leasedFor(at, slot.leaseNanos);
        state.record(LockEvent.Kind.RENEWED, slot.appKey, slot.lease.token(), slot.owner, "by the watchdog");
    }
}
