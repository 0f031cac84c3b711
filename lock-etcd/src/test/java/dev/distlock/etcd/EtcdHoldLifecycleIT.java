package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.LeadershipListener;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the server does to a hold reaches its holder, and what the holder sets reaches the server:
 * a force-release from another instance, an extension to an earlier end.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdHoldLifecycleIT {

    /** Long enough that every check below ends well before a lease would run out by itself. */
    private static final Duration LEASE = Duration.ofSeconds(6);

    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(LEASE);

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
    void forceReleaseByAnotherInstanceLosesTheWatchdogHoldBeforeItsLeaseEnds() throws Exception {
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry operator = etcd.newRegistry(OPTIONS)) {
            LockHandle evicted = holder.obtain("evicted-watchdog").acquire();
            CountDownLatch lost = new CountDownLatch(1);
            evicted.onLost(lost::countDown);

            assertThat(operator.forceRelease("evicted-watchdog")).isTrue();
            LockHandle next = operator.obtain("evicted-watchdog")
                    .tryAcquire(Duration.ofSeconds(5))
                    .orElseThrow();
            assertThat(next.token().isNewerThan(evicted.token())).isTrue();

            // A watchdog renewal is due every third of the lease; the loss must not wait for the lease to end.
            assertThat(lost.await(LEASE.toMillis() - 500, TimeUnit.MILLISECONDS))
                    .as("onLost ran before the evicted hold's lease would have ended")
                    .isTrue();
            assertThat(evicted.isValid()).isFalse();
            assertThat(next.isValid()).isTrue();
            evicted.close();
            next.close();
        }
    }

    @Test
    void forceReleaseByAnotherInstanceLosesAFixedLeaseHoldBeforeItsLeaseEnds() throws Exception {
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry operator = etcd.newRegistry(OPTIONS)) {
            LockHandle evicted = holder.obtain("evicted-fixed")
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                    .orElseThrow();
            CountDownLatch lost = new CountDownLatch(1);
            evicted.onLost(lost::countDown);

            assertThat(operator.forceRelease("evicted-fixed")).isTrue();

            assertThat(lost.await(LEASE.toMillis() - 500, TimeUnit.MILLISECONDS))
                    .as("onLost ran long before the fixed lease of 60 s ended")
                    .isTrue();
            assertThat(evicted.isValid()).isFalse();
            evicted.close();
        }
    }

    @Test
    void forceReleasedLeaderStopsLeadingSoOnlyTheNewLeaderLeads() throws Exception {
        try (LockRegistry first = etcd.newRegistry(OPTIONS);
                LockRegistry second = etcd.newRegistry(OPTIONS);
                Leadership a = Leadership.campaign(first, "evicted-leader", new Quiet());
                Leadership b = Leadership.campaign(second, "evicted-leader", new Quiet())) {
            awaitTrue(() -> a.isLeader() || b.isLeader(), Duration.ofSeconds(10));
            Leadership leader = a.isLeader() ? a : b;
            Leadership other = leader == a ? b : a;
            FencingToken deposed = leader.epoch().orElseThrow();

            LockRegistry operator = leader == a ? second : first;
            assertThat(operator.forceRelease("evicted-leader")).isTrue();
            awaitTrue(other::isLeader, Duration.ofSeconds(10));
            assertThat(other.epoch().orElseThrow().isNewerThan(deposed)).isTrue();

            awaitTrue(() -> !leader.isLeader(), LEASE.minusMillis(500));
            assertThat(leader.isLeader())
                    .as("the force-released leader learned it was deposed before its lease would have ended")
                    .isFalse();
            assertThat(other.isLeader()).isTrue();
        }
    }

    @Test
    void extendingToAnEarlierEndFreesTheKeyOnTheServerThen() throws Exception {
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry other = etcd.newRegistry(OPTIONS)) {
            LockHandle held = holder.obtain("extend-earlier")
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                    .orElseThrow();
            assertThat(held.extend(Duration.ofMillis(500))).isTrue();

            // Well before the first lease of 30 s ends: only the new end can let this in.
            Optional<LockHandle> taken = other.obtain("extend-earlier").tryAcquire(Duration.ofSeconds(10));
            assertThat(taken)
                    .as("the key came free on the server at its new end")
                    .isPresent();
            assertThat(held.isValid()).isFalse();
            taken.get().close();
            held.close();
        }
    }

    @Test
    void aHoldsKeyLivesOnALeaseOfOneLeaseTimeSoADeadHolderFreesItAfterAboutOneLease() throws Exception {
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                Client admin = etcd.newClient()) {
            LockHandle held = holder.obtain("one-lease").acquire();
            KeyValue entry = QueueEntries.of(admin, "one-lease").get(0);
            long grantedTtl = admin.getLeaseClient()
                    .timeToLive(entry.getLease(), LeaseOption.DEFAULT)
                    .get(10, TimeUnit.SECONDS)
                    .getGrantedTTL();
            assertThat(grantedTtl)
                    .as("the TTL in seconds of the lease the holder's key is on")
                    .isEqualTo(LEASE.toSeconds());
            held.close();
        }
    }

    /**
     * A waiter must not depend on one watch event: jetcd re-creates a broken watch stream at the
     * current revision, so the deletion that frees the key can go unseen. Here the waiter's client
     * drops every watch event; it must still take the key soon after the holder releases it.
     */
    @Test
    void aWaiterWhoseWatchMissesTheReleaseStillTakesTheKey() throws Exception {
        Client deaf = WatchlessClient.over(etcd.newClient());
        try (LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry waiter = new OwnClientRegistry(
                        EtcdLockRegistry.builder(deaf)
                                .options(OPTIONS)
                                .address(etcd.endpoints())
                                .build(),
                        deaf);
                Client admin = etcd.newClient()) {
            LockHandle held = holder.obtain("missed-watch").acquire();
            CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.obtain("missed-watch").tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            });
            QueueEntries.await(admin, "missed-watch", 2);
            held.close();
            // The wait is 20 s; a waiter that relied on the watch would wait all of it.
            Optional<LockHandle> taken = waiting.get(15, TimeUnit.SECONDS);
            assertThat(taken)
                    .as("the waiter took the key after the holder released it")
                    .isPresent();
            assertThat(taken.get().token().isNewerThan(held.token())).isTrue();
            taken.get().close();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, Duration within) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() - end < 0) {
            Thread.sleep(20);
        }
    }

    private static final class Quiet implements LeadershipListener {
        @Override
        public void granted(FencingToken epoch) {}

        @Override
        public void revoked(FencingToken epoch) {}
    }
}
