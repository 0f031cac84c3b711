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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Renewals} alone, on a real {@link LeaseKeeper}: renewing, a refused renewal, extending a fixed lease. */
class RenewalsTest {

    private final RecordingEvents events = new RecordingEvents();
    private final List<LeaseKeeper.Schedule> live = new CopyOnWriteArrayList<>();
    private final LeaseKeeper keeper = new LeaseKeeper("test", live);

    @AfterEach
    void closeKeeper() {
        keeper.close();
    }

    private Renewals<Lease> renewals(FakeBackend backend) {
        Releases<Lease> releases = new Releases<>(backend, keeper, events);
        LeaseEnds<Lease> ends = new LeaseEnds<>(keeper, events, releases, false);
        return new Renewals<>(backend, keeper, ends, events);
    }

    private Hold<Lease> live(Hold<Lease> hold) {
        live.add(hold.keeping);
        return hold;
    }

    @Test
    void aWatchdogLeaseIsRenewedForItsLeaseTime() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofMillis(600), true, null));

        renewals(backend).start(hold);

        assertThat(awaited(backend.renewedSignal.get())).isTrue();
        assertThat(backend.renewedFor).first().isEqualTo(Duration.ofMillis(600));
    }

    @Test
    void aRefusedRenewalLosesTheHold() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        backend.refuseRenewals.set(true);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofMillis(600), true, null));

        renewals(backend).start(hold);

        assertThat(awaited(events.lostSignal)).isTrue();
        assertThat(events.lostReasons).containsExactly("the server no longer had it when renewing");
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
    }

    @Test
    void aRenewalSentBeforeTheLeaseEndAndAnsweredJustAfterItKeepsTheHold() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        backend.renewalAnswer = new CountDownLatch(1);
        // A 6 s lease granted 5.5 s ago: its renewal is due at once and its local lease ends in 0.5 s.
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofSeconds(6), true, null, Duration.ofMillis(5_500)));
        long end = hold.leaseEndNanos();

        renewals(backend).start(hold);
        assertThat(awaited(backend.renewedSignal.get())).isTrue();
        sleepUntil(end + Duration.ofMillis(50).toNanos());
        backend.renewalAnswer.countDown(); // answered after the end, within the grace of a sixth of the lease

        awaitLeaseEndAfter(hold, end);
        assertThat(hold.state()).isEqualTo(Hold.State.HELD);
        assertThat(events.lostReasons).isEmpty();
        assertThat(hold.isValid()).isTrue();
    }

    @Test
    void aRenewalWithoutAnAnswerLosesTheHoldASixthOfTheLeaseAfterItsEnd() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        backend.renewalAnswer = new CountDownLatch(1);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofSeconds(6), true, null, Duration.ofMillis(5_500)));
        long end = hold.leaseEndNanos();

        renewals(backend).start(hold);

        assertThat(awaited(events.lostSignal)).isTrue();
        assertThat(System.nanoTime() - end)
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
        assertThat(events.lostReasons).containsExactly("the lease ran out while a renewal got no answer");
        backend.renewalAnswer.countDown(); // a late "still held" does not bring the hold back
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        for (long left; (left = nanos - System.nanoTime()) > 0; ) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    private static void awaitLeaseEndAfter(Hold<Lease> hold, long end) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (hold.leaseEndNanos() == end && hold.state() == Hold.State.HELD && System.nanoTime() < until) {
            Thread.sleep(5);
        }
    }

    @Test
    void extendingSetsAFixedLeaseToEndLater() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofSeconds(10), false, null));
        long before = hold.leaseEndNanos();

        assertThat(renewals(backend).extend(hold, Duration.ofMinutes(1))).isTrue();

        assertThat(backend.renewedFor).containsExactly(Duration.ofMinutes(1));
        assertThat(hold.leaseEndNanos()).isGreaterThan(before);
    }

    @Test
    void extendingAWatchdogLeaseIsRefusedWithTheKeyInTheMessage() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofSeconds(10), true, null));

        assertThatThrownBy(() -> renewals(backend).extend(hold, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Lock 'k' on fake (nowhere:0) is renewed by the watchdog");
    }

    @Test
    void extendingAFixedLeaseTheServerNoLongerHasLosesTheHold() {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        Hold<Lease> hold = live(hold(backend, "k", Duration.ofSeconds(10), false, null));
        backend.refuseRenewals.set(true);

        assertThat(renewals(backend).extend(hold, Duration.ofMinutes(1))).isFalse();
        assertThat(events.lostReasons).containsExactly("the server no longer had it when extending its lease");
    }
}
