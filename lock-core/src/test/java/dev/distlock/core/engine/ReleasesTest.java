package dev.distlock.core.engine;

import static dev.distlock.core.engine.StageFakes.awaited;
import static dev.distlock.core.engine.StageFakes.hold;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.engine.StageFakes.RecordingEvents;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Releases} alone: the release policy (now, lingering for a minimum hold, a lost hold in
 * the background, left on the server at close) and the one way a hold ends.
 */
class ReleasesTest {

    private final RecordingEvents events = new RecordingEvents();
    private final LeaseKeeper keeper = new LeaseKeeper("test", List.of());

    @AfterEach
    void closeKeeper() {
        keeper.close();
    }

    @Test
    void aReleaseWithoutMinimumFreesTheKeyNowAndEndsTheHoldOnce() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);

        release(releases, hold);
        releases.end(hold, Hold.Ending.CLOSED);

        assertThat(backend.held).doesNotContainKey("k");
        assertThat(backend.released).hasSize(1);
        assertThat(hold.state()).isEqualTo(Hold.State.ENDED);
        assertThat(events.ended).containsExactly(hold);
        assertThat(hold.keyState.gate.availablePermits()).isEqualTo(1);
    }

    @Test
    void aReleaseBeforeTheMinimumHoldLingersOnTheServerUntilItEnds() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        hold.holdAtLeast(Duration.ofMillis(300));

        release(releases, hold);

        assertThat(hold.state()).isEqualTo(Hold.State.LINGERING);
        assertThat(backend.renewedFor)
                .singleElement()
                .satisfies(lease -> assertThat(lease).isPositive().isLessThanOrEqualTo(Duration.ofMillis(300)));
        assertThat(hold.keyState.gate.availablePermits())
                .as("the gate stays taken")
                .isZero();
        assertThat(awaited(events.endedSignal)).isTrue();
        assertThat(backend.held).doesNotContainKey("k");
        assertThat(hold.keyState.gate.tryAcquire(30, TimeUnit.SECONDS))
                .as("the gate is freed right after the end")
                .isTrue();
    }

    @Test
    void aLostHoldIsReleasedInTheBackgroundAndItsFailureNeverReachesTheCaller() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        hold.markLost();
        backend.failReleases.set(true);

        release(releases, hold);

        assertThat(awaited(backend.releasedSignal.get())).isTrue();
        assertThat(hold.state()).isEqualTo(Hold.State.ENDED);
        releases.close();
        releases.awaitBackground(Duration.ofSeconds(30));
        assertThat(events.errors).hasSize(1);
    }

    @Test
    void aLiveHoldsFailedReleaseReachesTheCallerAfterTheLocalStateIsCleared() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        Hold<Lease> hold = hold(backend, "k", Duration.ofMinutes(1), true, null);
        backend.failReleases.set(true);

        assertThatThrownBy(() -> release(releases, hold)).hasMessage("fake release failure");
        assertThat(hold.state()).isEqualTo(Hold.State.ENDED);
        assertThat(hold.keyState.gate.availablePermits()).isEqualTo(1);
        assertThat(events.ended).containsExactly(hold);
    }

    @Test
    void atCloseALingeringHoldIsLeftOnAServerLeaseAndKeptForLaterOnASession() {
        FakeBackend server = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> onServer = hold(server, "k", Duration.ofMinutes(1), true, null);
        onServer.startLingering(System.nanoTime() + Duration.ofMinutes(1).toNanos());
        FakeBackend session = new FakeBackend(LockBackend.LeaseExpiry.SESSION);
        Hold<Lease> onSession = hold(session, "k", Duration.ofMinutes(1), true, null);
        onSession.startLingering(System.nanoTime() + Duration.ofMinutes(1).toNanos());
        Hold<Lease> held = hold(session, "other", Duration.ofMinutes(1), true, null);

        assertThat(new Releases<>(server, keeper, events).atClose(onServer)).isFalse();
        assertThat(new Releases<>(session, keeper, events).atClose(onSession)).isTrue();
        assertThat(new Releases<>(session, keeper, events).atClose(held)).isFalse();

        assertThat(onServer.state()).isEqualTo(Hold.State.ENDED);
        assertThat(server.held).as("left on the server").containsKey("k");
        assertThat(onSession.state()).isEqualTo(Hold.State.LINGERING);
        assertThat(session.held).containsKey("k").doesNotContainKey("other");
    }

    /** The owner's last release, as {@link EngineHandle} makes it. */
    private static void release(Releases<Lease> releases, Hold<Lease> hold) {
        if (!releases.lingers(hold)) {
            releases.end(hold, Hold.Ending.RELEASED);
        }
    }
}
