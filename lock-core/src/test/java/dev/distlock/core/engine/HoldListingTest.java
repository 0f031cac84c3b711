package dev.distlock.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.HoldInfo;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockObserver;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.engine.StageFakes.FakeBackend;
import dev.distlock.core.engine.StageFakes.Lease;
import dev.distlock.core.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A registry's list of holds and its hold events against the moment the key comes free: whoever
 * takes the key next, in another registry or in this one, never finds the previous hold still listed.
 */
class HoldListingTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void aHoldIsNoLongerListedOnceItsKeyIsFreeOnTheServer() throws Exception {
        FakeBackend server = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        try (LockEngine<Lease> engine = new LockEngine<>(server, RegistryOptions.defaults())) {
            LockHandle handle = engine.acquireAsync(
                            Acquisition.renewed("k", "k", Duration.ZERO, LEASE).ownedByHandle())
                    .get(30, TimeUnit.SECONDS)
                    .orElseThrow();
            List<List<HoldInfo>> listedWhenFree = new CopyOnWriteArrayList<>();
            // What a caller of another registry sees the instant it could take the key.
            server.afterRelease = () -> listedWhenFree.add(engine.holds());

            handle.close();

            assertThat(listedWhenFree)
                    .singleElement()
                    .satisfies(listed -> assertThat(listed)
                            .as("holds listed when the key was already free")
                            .isEmpty());
        }
    }

    @Test
    void theNextHolderInTheSameRegistryStartsAfterThePreviousHoldEnded() throws Exception {
        FakeBackend server = new FakeBackend(LockBackend.LeaseExpiry.SERVER);
        List<String> events = new CopyOnWriteArrayList<>();
        try (LockEngine<Lease> engine = new LockEngine<>(server, RegistryOptions.defaults())) {
            engine.addObserver(new LockObserver() {
                @Override
                public void holdStarted(HoldInfo hold) {
                    events.add("started");
                }

                @Override
                public void holdEnded(HoldInfo hold) {
                    events.add("ended");
                }
            });
            LockHandle first = engine.acquireAsync(
                            Acquisition.renewed("k", "k", Duration.ZERO, LEASE).ownedByHandle())
                    .get(30, TimeUnit.SECONDS)
                    .orElseThrow();
            for (int round = 0; round < 200; round++) {
                var next = engine.acquireAsync(Acquisition.renewed("k", "k", Duration.ofSeconds(30), LEASE)
                        .ownedByHandle());
                first.close();
                first = next.get(30, TimeUnit.SECONDS).orElseThrow();
                assertThat(engine.holds()).as("round %d", round).hasSize(1);
            }
            first.close();
        }
        assertThat(events).hasSize(402);
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i))
                    .as("event %d: %s", i, events.subList(Math.max(0, i - 3), i + 1))
                    .isEqualTo(i % 2 == 0 ? "started" : "ended");
        }
    }
}
