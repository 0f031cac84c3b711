package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What an operator asks of etcd: who holds a key (from another registry), evicting it, and a health check. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdOperationsIT {

    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(6));

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) {
        etcd = EtcdCluster.start(1, dir);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void anotherRegistryReadsTheHolderItsTokenAndTheLeaseLeft() throws Exception {
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry operator = etcd.newRegistry(OPTIONS)) {
            LockHandle held = holder.obtain("who").acquire();
            LockHolder seen = operator.holderOf("who").orElseThrow();
            assertThat(seen.token()).isEqualTo(held.token());
            assertThat(seen.holder())
                    .as("the holder description stored with the entry")
                    .isNotBlank()
                    .doesNotContain("|");
            assertThat(seen.holder()).contains(Thread.currentThread().getName());
            assertThat(seen.leaseLeft())
                    .hasValueSatisfying(
                            left -> assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(8)));
            held.close();
            assertThat(operator.holderOf("who")).isEmpty();
        }
    }

    @Test
    void forceReleaseLetsTheNextOwnerInAndTheEvictedHoldersReleaseLeavesItAlone() throws Exception {
        try (LockRegistry stuck = etcd.newRegistry(OPTIONS);
                LockRegistry operator = etcd.newRegistry(OPTIONS);
                LockRegistry next = etcd.newRegistry(OPTIONS)) {
            LockHandle evicted = stuck.obtain("evict").acquire();
            assertThat(next.obtain("evict").tryAcquire(Duration.ZERO)).isEmpty();

            assertThat(operator.forceRelease("evict")).isTrue();
            LockHandle taken =
                    next.obtain("evict").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(taken.token().isNewerThan(evicted.token())).isTrue();

            evicted.close();
            assertThat(operator.holderOf("evict").map(LockHolder::token)).contains(taken.token());
            assertThat(operator.obtain("evict").tryAcquire(Duration.ZERO))
                    .as("the evicted holder's late release did not free the next owner's lock")
                    .isEmpty();
            taken.close();
            assertThat(operator.forceRelease("evict"))
                    .as("nothing left to evict")
                    .isFalse();
        }
    }

    /**
     * The bound is three seconds: the verify's second and the answer budget's, and a second for a busy machine, the
     * margin of its {@link TimingBound}. Each measurement starts and kills an etcd of its own.
     */
    @Test
    void verifyPassesAgainstARunningEtcdAndNamesTheEndpointsWhenItIsDown(@TempDir Path own) throws Exception {
        TimingBound.of(
                        "EtcdOperationsIT.verifyPassesAgainstARunningEtcdAndNamesTheEndpointsWhenItIsDown",
                        Duration.ofSeconds(1))
                .check(() -> {
                    Path run = Files.createDirectories(own.resolve("run-" + System.nanoTime()));
                    try (EtcdCluster single = EtcdCluster.start(1, run);
                            LockRegistry registry = single.newRegistry(OPTIONS)) {
                        registry.verify(Duration.ofSeconds(5));
                        single.member(0).kill();
                        long start = System.nanoTime();
                        Throwable thrown = catchThrowable(() -> registry.verify(Duration.ofSeconds(1)));
                        Timed timed = Timed.since(start, Duration.ofSeconds(3));
                        assertThat(thrown)
                                .isInstanceOf(LockBackendException.class)
                                .hasMessageContaining(single.endpoints())
                                .hasMessageContaining("Check the etcd endpoints");
                        return timed;
                    }
                });
    }

    @Test
    void nobodyHoldsAKeyThatWasNeverLocked() {
        try (LockRegistry operator = etcd.newRegistry(OPTIONS)) {
            Optional<LockHolder> holder = operator.holderOf("never-locked");
            assertThat(holder).isEmpty();
            assertThat(operator.forceRelease("never-locked")).isFalse();
        }
    }
}
