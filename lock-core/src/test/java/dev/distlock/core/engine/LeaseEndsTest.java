package dev.distlock.core.engine;

import static dev.distlock.core.engine.StageFakes.awaited;
import static dev.distlock.core.engine.StageFakes.hold;
import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.engine.StageFakes.RecordingEvents;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LeaseEnds} alone: the verdicts on a lease's end, their wording, and the one way to lose a hold. */
class LeaseEndsTest {

    private final RecordingEvents events = new RecordingEvents();
    private final LeaseKeeper keeper = new LeaseKeeper("test", List.of());

    @AfterEach
    void closeKeeper() {
        keeper.close();
    }

    private LeaseEnds<Lease> ends(FakeBackend backend) {
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        return new LeaseEnds<>(keeper, events, releases, backend.leaseExpiry() == LockBackend.LeaseExpiry.SESSION);
    }

    @Test
    void losingFreesTheGateTellsTheEngineOnceAndHandsOnTheCallbacks() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        hold.addLostCallback(() -> {});

        assertThat(ends(backend).lose(hold, "a reason")).isTrue();
        assertThat(ends(backend).lose(hold, "another")).isFalse();
        assertThat(events.lostReasons).containsExactly("a reason");
        assertThat(events.callbacksLater).hasSize(1);
        assertThat(hold.keyState.gate.availablePermits()).isEqualTo(1);
    }

    @Test
    void aRenewedLeaseThatRanOutIsLostInItsOneWording() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        LeaseEnds<Lease> ends = ends(backend);
        Hold<Lease> quiet = hold(backend, "quiet", Duration.ofMinutes(1), true, null);
        Hold<Lease> failing = hold(backend, "failing", Duration.ofMinutes(1), true, null);

        assertThat(ends.ranOut(quiet, quiet.leaseEndNanos() - 1))
                .as("time left")
                .isFalse();
        assertThat(ends.ranOut(quiet, quiet.leaseEndNanos())).isTrue();
        assertThat(ends.ranOut(failing, failing.leaseEndNanos(), "renewal failed: down"))
                .isTrue();
        assertThat(events.lostReasons)
                .containsExactly(
                        "the lease ran out before a renewal succeeded", "the lease ran out while renewal failed: down");
    }

    @Test
    void aLeaseStillRunningIsNotLostByTheCheckBeforeARelease() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), false, null);
        ends(backend).loseIfExpired(hold);
        assertThat(hold.state()).isEqualTo(Hold.State.HELD);
        assertThat(events.lostReasons).isEmpty();
    }

    @Test
    void anExpiredFixedLeaseIsLostByTheCheckBeforeARelease() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMillis(1), false, null);
        while (hold.leaseLeft(System.nanoTime()) > 0) {
            Thread.onSpinWait();
        }
        ends(backend).loseIfExpired(hold);
        assertThat(events.lostReasons).containsExactly("its fixed lease of 1ms ran out");
        assertThat(backend.released).as("a server lease ends by itself").isEmpty();
    }

    @Test
    void aFixedLeaseThatEndsOnASessionBackendHasItsNodeRemoved() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        Hold<Lease> hold = hold(backend, "k", Duration.ofSeconds(2), false, Duration.ofSeconds(30));
        ends(backend).fixedLeaseEnded(hold);
        assertThat(events.lostReasons).containsExactly("its fixed lease of 2s ran out");
        assertThat(awaited(backend.releasedSignal.get())).isTrue();
        assertThat(backend.held).doesNotContainKey("k");
    }
}
