package dev.distlock.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link Acquirer} over a fake backend: joining the owner's hold, taking a free key, refusing a taken one. */
class AcquirerTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void theOwnerJoinsItsLiveHoldAndAnotherOwnerFindsTheKeyTaken() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        try (LockEngine<Lease> engine = new LockEngine<>(backend, RegistryOptions.defaults())) {
            Acquirer<Lease> acquirer = engine.acquirer;
            Thread me = Thread.currentThread();

            Acquirer.Acquired<Lease> first = acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE))
                    .orElseThrow();
            Acquirer.Acquired<Lease> again = acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE))
                    .orElseThrow();
            Optional<Acquirer.Acquired<Lease>> other = CompletableFuture.supplyAsync(() -> {
                        try {
                            return acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE)
                                    .ownedByHandle());
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .get();

            assertThat(again.hold()).isSameAs(first.hold());
            assertThat(again.ownership().count()).isEqualTo(2);
            assertThat(other).isEmpty();
            assertThat(backend.tokens.get())
                    .as("the server was asked once by the owner")
                    .isEqualTo(1);
        }
    }

    @Test
    void anOwnerWhoseHoldWasLostGetsAFreshHoldWithAHigherToken() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        try (LockEngine<Lease> engine = new LockEngine<>(backend, RegistryOptions.defaults())) {
            Acquirer<Lease> acquirer = engine.acquirer;
            Thread me = Thread.currentThread();
            Hold<Lease> lost = acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE))
                    .orElseThrow()
                    .hold();
            engine.leaseEnds.lose(lost, "a test lost it");
            backend.held.clear(); // the server let it go

            Acquirer.Acquired<Lease> fresh = acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE))
                    .orElseThrow();

            assertThat(fresh.hold()).isNotSameAs(lost);
            assertThat(fresh.hold().token().value()).isGreaterThan(lost.token().value());
            assertThat(fresh.ownership().count()).isEqualTo(2);
            assertThat(lost.state()).as("the lost hold was replaced").isEqualTo(Hold.State.ENDED);
        }
    }

    @Test
    void aGrantAnsweredAfterItsLeaseWouldEndIsGivenBackAndTheKeyAskedForAgain() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        backend.lateBy = LEASE.plusSeconds(1);
        backend.lateGrants.set(1);
        try (LockEngine<Lease> engine = new LockEngine<>(backend, RegistryOptions.defaults())) {
            Hold<Lease> hold = engine.acquirer
                    .acquire(Acquisition.renewed("k", "k", Duration.ofSeconds(5), LEASE))
                    .orElseThrow()
                    .hold();

            assertThat(hold.isValid()).isTrue();
            assertThat(hold.token().value()).as("the second grant").isEqualTo(2);
            assertThat(backend.released)
                    .as("the dead grant was freed on the server")
                    .extracting(lease -> lease.token().value())
                    .containsExactly(1L);
        }
    }

    @Test
    void aZeroWaitWhoseGrantCameTooLateEndsEmptyAndLeavesTheKeyFree() throws Exception {
        FakeBackend backend = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        backend.lateBy = LEASE.plusSeconds(1);
        backend.lateGrants.set(1);
        try (LockEngine<Lease> engine = new LockEngine<>(backend, RegistryOptions.defaults())) {
            Optional<Acquirer.Acquired<Lease>> taken =
                    engine.acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE));

            assertThat(taken).isEmpty();
            assertThat(backend.held).isEmpty();
            assertThat(engine.acquirer.acquire(Acquisition.renewed("k", "k", Duration.ZERO, LEASE)))
                    .as("the local gate was freed too")
                    .isPresent();
        }
    }
}
