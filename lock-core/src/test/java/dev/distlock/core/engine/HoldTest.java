package dev.distlock.core.engine;

import static dev.distlock.core.engine.StageFakes.hold;
import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Hold} alone: its states and transitions, with nothing of the engine around it. */
class HoldTest {

    private final FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);

    @Test
    void aHoldIsLostOnceAndHandsOverItsCallbacksThatOnce() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        Runnable callback = () -> {};
        assertThat(hold.addLostCallback(callback)).as("kept while held").isFalse();

        assertThat(hold.markLost()).containsExactly(callback);
        assertThat(hold.markLost()).as("a second loss").isNull();
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.addLostCallback(() -> {}))
                .as("run at once: the hold was lost")
                .isTrue();
    }

    @Test
    void aHoldThatEndsWithoutLossDropsItsCallbacks() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        hold.addLostCallback(() -> {});

        assertThat(hold.markEnded()).isEqualTo(Hold.State.HELD);
        assertThat(hold.markEnded()).as("ended twice").isNull();
        assertThat(hold.markLost()).as("an ended hold is never lost").isNull();
        assertThat(hold.addLostCallback(() -> {})).as("never run").isFalse();
    }

    @Test
    void onlyAHeldHoldStartsLingeringAndItsLeaseThenEndsWithTheMinimum() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();

        assertThat(hold.startLingering(end)).isTrue();
        assertThat(hold.state()).isEqualTo(Hold.State.LINGERING);
        assertThat(hold.leaseEndNanos()).isEqualTo(end);
        assertThat(hold.startLingering(end)).as("lingering already").isFalse();
        assertThat(hold.markLost()).as("a lingering hold is not lost").isNull();
        assertThat(hold.markEnded()).isEqualTo(Hold.State.LINGERING);
    }

    @Test
    void theGateIsFreedOnceHoweverOftenItIsAsked() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        hold.freeGate();
        hold.freeGate();
        assertThat(hold.keyState.gate.availablePermits()).isEqualTo(1);
    }

    @Test
    void theLocalLeaseCountsFromTheRequestAndARenewalMovesItsEnd() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofSeconds(10), true, null);
        long granted = hold.lease.grantRequestedAtNanos();
        assertThat(hold.leaseEndNanos())
                .isEqualTo(granted + Duration.ofSeconds(10).toNanos());
        assertThat(hold.leaseLeft(granted + Duration.ofSeconds(10).toNanos())).isZero();

        hold.renewing(true);
        assertThat(hold.awaitingRenewalAt(hold.leaseEndNanos())).isTrue();
        assertThat(hold.answered(true, granted + Duration.ofSeconds(3).toNanos()))
                .isEqualTo(Hold.State.HELD);
        assertThat(hold.leaseEndNanos())
                .isEqualTo(granted + Duration.ofSeconds(13).toNanos());
        assertThat(hold.isRenewing()).isFalse();
    }

    @Test
    void aRefusedRenewalLeavesTheLeaseEndWhereItWas() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofSeconds(10), true, null);
        long end = hold.leaseEndNanos();
        hold.renewing(true);
        hold.answered(
                false,
                hold.lease.grantRequestedAtNanos() + Duration.ofSeconds(3).toNanos());
        assertThat(hold.leaseEndNanos()).isEqualTo(end);
        assertThat(hold.awaitingRenewalAt(end)).isFalse();
    }

    @Test
    void aFixedLeaseOnASessionBackendEndsWithItsSessionBoundWhenThatComesFirst() {
        FakeBackend session = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        Hold<Lease> hold = hold(session, "k", Duration.ofSeconds(10), false, Duration.ofSeconds(2));
        long granted = hold.lease.grantRequestedAtNanos();
        assertThat(hold.hasSessionBound()).isTrue();
        assertThat(hold.leaseLeft(granted)).isEqualTo(Duration.ofSeconds(2).toNanos());

        hold.confirmedAt(granted + Duration.ofSeconds(1).toNanos());
        assertThat(hold.sessionEndNanos())
                .isEqualTo(granted + Duration.ofSeconds(3).toNanos());
        assertThat(List.of(hold.leaseLeft(granted)))
                .containsExactly(Duration.ofSeconds(3).toNanos());
    }

    @Test
    void aMinimumHoldOnlyGrows() {
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        long granted = hold.lease.grantRequestedAtNanos();
        hold.holdAtLeast(Duration.ofSeconds(5));
        hold.holdAtLeast(Duration.ofSeconds(2));
        assertThat(hold.minimumEndNanos())
                .isEqualTo(granted + Duration.ofSeconds(5).toNanos());
    }
}
