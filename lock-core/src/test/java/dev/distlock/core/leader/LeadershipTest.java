package dev.distlock.core.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeadershipTest {

    private static final String NAME = "leader";
    private static final Duration LEASE = Duration.ofMillis(600);
    private static final CampaignOptions QUICK = CampaignOptions.defaults()
            .withCheckInterval(Duration.ofMillis(20))
            .withRejoinDelay(Duration.ofMillis(50))
            .withRetryDelay(Duration.ofMillis(50));

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, Leadership> candidates = new ConcurrentHashMap<>();
    private final LeaderLog log = new LeaderLog();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void exactlyOneLeaderAtATimeAndEpochsRiseAcrossTerms() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        for (String candidate : List.of("a", "b", "c")) {
            campaign(candidate, memoryRegistry(store), QUICK);
        }
        log.resignRounds(candidates, 30, 10_000);
    }

    @Test
    void overlapIsDetectedWhenCandidatesDoNotShareAServer() throws Exception {
        for (String candidate : List.of("a", "b", "c")) {
            campaign(candidate, memoryRegistry(new MemoryLockStore()), QUICK);
        }
        log.awaitGrants(3, 10_000);

        assertThat(log.maxLeaders())
                .as("the detector sees three leaders at once")
                .isEqualTo(3);
    }

    @Test
    void resigningLeaderIsRevokedBeforeTheWaitingCandidateIsGranted() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        Leadership first = campaign("a", memoryRegistry(store), CampaignOptions.defaults());
        log.awaitGrants(1, 10_000);
        campaign("b", memoryRegistry(store), CampaignOptions.defaults());

        long resignedAt = System.nanoTime();
        first.resign();
        LeaderLog.Event next = log.awaitGrants(2, 10_000);

        assertThat(next.candidate()).as("the waiting candidate took over").isEqualTo("b");
        assertThat(first.isLeader()).isFalse();
        assertThat(log.sequence()).containsExactly("a+", "a-", "b+");
        System.out.printf("Hand-over on resign (memory): %.1f ms%n", (next.atNanos() - resignedAt) / 1e6);
    }

    @Test
    void leaderClosedWhileLeadingIsRevokedAndHandsOver() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        Leadership first = campaign("a", memoryRegistry(store), QUICK);
        log.awaitGrants(1, 10_000);
        campaign("b", memoryRegistry(store), QUICK);

        first.close();

        assertThat(log.awaitGrants(2, 10_000).candidate()).isEqualTo("b");
        assertThat(log.sequence()).containsExactly("a+", "a-", "b+");
    }

    @Test
    void leaderWhoseRegistryIsClosedWithoutReleasingIsRevokedBeforeAnotherIsGranted() throws Exception {
        TestServer server = new TestServer();
        TestServer.Client crashing = server.client(LEASE);
        Leadership first = campaign("a", crashing, QUICK);
        log.awaitGrants(1, 10_000);
        campaign("b", server.client(LEASE), QUICK);

        crashing.crash();
        long closedAt = System.nanoTime();
        crashing.close();

        assertThat(first.isLeader())
                .as("no longer leader once its registry is closed")
                .isFalse();
        LeaderLog.Event next = log.awaitGrants(2, 10_000);
        assertThat(next.candidate()).isEqualTo("b");
        assertThat(log.sequence()).containsExactly("a+", "a-", "b+");
        System.out.printf(
                "Failover after the leader's registry was closed without releasing (lease %d ms): %.1f ms%n",
                LEASE.toMillis(), (next.atNanos() - closedAt) / 1e6);
    }

    @Test
    void leaderCutOffFromTheServerIsRevokedBeforeAnotherIsGranted() throws Exception {
        TestServer server = new TestServer();
        TestServer.Client cutOff = server.client(LEASE);
        Leadership first = campaign("a", cutOff, QUICK);
        log.awaitGrants(1, 10_000);
        AtomicReference<Boolean> firstLeadingAtGrant = new AtomicReference<>();
        LeadershipListener recorded = log.listener("b");
        LockRegistry other = server.client(LEASE);
        resources.add(other);
        resources.add(Leadership.campaign(
                other,
                NAME,
                new LeadershipListener() {
                    @Override
                    public void granted(FencingToken epoch) {
                        firstLeadingAtGrant.compareAndSet(null, first.isLeader());
                        recorded.granted(epoch);
                    }

                    @Override
                    public void revoked(FencingToken epoch) {
                        recorded.revoked(epoch);
                    }
                },
                QUICK));

        cutOff.crash();

        assertThat(log.awaitGrants(2, 10_000).candidate()).isEqualTo("b");
        assertThat(firstLeadingAtGrant.get())
                .as("the cut-off leader still answered isLeader() when the other was granted")
                .isFalse();
        log.awaitEvents(3, 10_000);
        assertThat(log.sequence()).containsExactlyInAnyOrder("a+", "a-", "b+");
    }

    @Test
    void resignedLeaderStopsLeadingAtOnceEvenWhileItsCallbackRuns() throws Exception {
        CountDownLatch inGranted = new CountDownLatch(1);
        CountDownLatch finishGranted = new CountDownLatch(1);
        LeadershipListener recorded = log.listener("a");
        Leadership leadership = Leadership.campaign(
                memoryRegistry(new MemoryLockStore()),
                NAME,
                new LeadershipListener() {
                    @Override
                    public void granted(FencingToken epoch) {
                        recorded.granted(epoch);
                        inGranted.countDown();
                        try {
                            finishGranted.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }

                    @Override
                    public void revoked(FencingToken epoch) {
                        recorded.revoked(epoch);
                    }
                },
                QUICK);
        resources.add(leadership);
        inGranted.await();
        assertThat(leadership.isLeader()).isTrue();

        leadership.resign();

        assertThat(leadership.isLeader()).as("leader after resign() returned").isFalse();
        assertThat(leadership.epoch()).isEmpty();
        finishGranted.countDown();
        log.awaitRevoked("a", 10_000);
    }

    @Test
    void failedReleaseOnResignDoesNotEndTheCampaign() throws Exception {
        TestServer server = new TestServer();
        TestServer.Client client = server.client(LEASE);
        Leadership leadership = campaign("a", client, QUICK);
        log.awaitGrants(1, 10_000);

        client.failNextRelease();
        leadership.resign();

        LeaderLog.Event again = log.awaitGrants(2, 10_000);
        assertThat(again.candidate())
                .as("campaigning again once the lease ran out")
                .isEqualTo("a");
    }

    @Test
    void lostLeaseRevokesTheTermAndTheNextTermHasAHigherEpoch() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        Leadership leadership = campaign("a", memoryRegistry(store), QUICK);
        LeaderLog.Event first = log.awaitGrants(1, 10_000);

        store.expire(NAME);

        LeaderLog.Event second = log.awaitGrants(2, 10_000);
        assertThat(log.sequence()).containsExactly("a+", "a-", "a+");
        assertThat(second.epoch()).isGreaterThan(first.epoch());
        assertThat(leadership.epoch()).contains(second.epoch());
    }

    @Test
    void closedCandidateStopsCampaigning() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        Leadership leadership = campaign("a", memoryRegistry(store), QUICK);
        log.awaitGrants(1, 10_000);

        leadership.close();

        assertThat(leadership.isLeader()).isFalse();
        assertThat(leadership.epoch()).isEmpty();
        assertThat(log.sequence()).containsExactly("a+", "a-");
        LockRegistry other = memoryRegistry(store);
        assertThat(other.obtain(NAME).tryAcquire(Duration.ZERO))
                .as("the name was released")
                .isPresent();
    }

    private LockRegistry memoryRegistry(MemoryLockStore store) {
        MemoryLockRegistry registry =
                MemoryLockRegistry.builder().store(store).leaseTime(LEASE).build();
        resources.add(registry);
        return registry;
    }

    private Leadership campaign(String candidate, LockRegistry registry, CampaignOptions options) {
        if (registry instanceof TestServer.Client client) {
            resources.add(client);
        }
        Leadership leadership = Leadership.campaign(registry, NAME, log.listener(candidate), options);
        resources.add(leadership);
        candidates.put(candidate, leadership);
        return leadership;
    }
}
