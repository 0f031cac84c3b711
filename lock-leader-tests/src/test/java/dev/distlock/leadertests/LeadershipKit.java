package dev.distlock.leadertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.CampaignOptions;
import dev.distlock.core.leader.Leader;
import dev.distlock.core.leader.LeaderLog;
import dev.distlock.core.leader.Leadership;
import dev.distlock.core.leader.ObserveOptions;
import dev.distlock.core.leader.ObservedLeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election on one real backend: candidates in this JVM, and a leader in a JVM of its own
 * that is killed or stopped. A subclass starts the server and says how to reach it.
 */
abstract class LeadershipKit {

    private static final CampaignOptions QUICK = CampaignOptions.defaults()
            .withCheckInterval(Duration.ofMillis(20))
            .withRejoinDelay(Duration.ofMillis(100))
            .withRetryDelay(Duration.ofMillis(100));

    /**
     * The lease of tests about order, where a leader must lead until it resigns: a third of it (the stall a watchdog
     * lease survives, contract 4) is longer than any stall seen on a loaded test machine. The failover tests, which
     * wait for a lease to end, use the subclass's shorter lease.
     */
    private static final Duration STEADY_LEASE = Duration.ofSeconds(8);

    private final String name = "leader-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, Leadership> candidates = new HashMap<>();
    private final LeaderLog log = new LeaderLog();
    private BackendClients clients;

    /** Clients of the server under test, with the lease the tests use. */
    protected abstract BackendClients newClients();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void exactlyOneLeaderAtATimeAndEpochsRiseAcrossTerms() throws Exception {
        steadyLeases();
        for (String candidate : List.of("a", "b", "c")) {
            campaign(candidate, QUICK);
        }
        log.resignRounds(candidates, 10, 30_000);
    }

    @Test
    void anInstanceThatDoesNotCampaignSeesEveryTermOfAResignSequenceWithItsHolderEpochAndValue() throws Exception {
        steadyLeases();
        LockRegistry observer = clients().newRegistry();
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(
                observer, name, observed, ObserveOptions.defaults().withPollInterval(Duration.ofMillis(50))));
        observed.await("no leader", ObservedLeaders.Told::isNoLeader, 30_000);
        assertThat(Leadership.leaderOf(observer, name)).isEmpty();
        for (String candidate : List.of("a", "b", "c")) {
            campaign(candidate, QUICK.withValue(valueOf(candidate)));
        }

        int terms = 5;
        for (int term = 1; term <= terms + 1; term++) {
            LeaderLog.Event granted = log.awaitGrants(term, 30_000);
            Leader seen = observed.awaitLeader(granted.epoch().value(), 30_000);
            assertThat(seen.value()).contains(valueOf(granted.candidate()));
            assertThat(seen.holder())
                    .contains("pid " + ProcessHandle.current().pid())
                    .endsWith("thread distlock-leader-" + name);
            if (term == 1) {
                Leader read = Leadership.leaderOf(observer, name).orElseThrow();
                assertThat(read.epoch()).isEqualTo(granted.epoch());
                assertThat(read.value()).contains(valueOf(granted.candidate()));
            }
            if (term <= terms) {
                candidates.get(granted.candidate()).resign();
            }
        }

        assertThat(observed.epochs()).as("epochs seen").containsExactlyElementsOf(log.grantedEpochs());
        assertThat(observed.told()).noneMatch(ObservedLeaders.Told::isUnknown);
    }

    @Test
    void resigningLeaderIsRevokedBeforeTheWaitingCandidateIsGranted() throws Exception {
        // A leader that lost its lease before it resigned would campaign again at once and could be granted again.
        steadyLeases();
        // The resigned candidate stays out long enough that only the waiting one can be granted.
        CampaignOptions options = CampaignOptions.defaults().withRejoinDelay(Duration.ofSeconds(10));
        Leadership first = campaign("a", options);
        log.awaitGrants(1, 30_000);
        campaign("b", options);
        Thread.sleep(500); // b is waiting for the name

        long resignedAt = System.nanoTime();
        first.resign();
        LeaderLog.Event next = log.awaitGrants(2, 30_000);

        assertThat(next.candidate()).isEqualTo("b");
        assertThat(log.sequence()).containsExactly("a+", "a-", "b+");
        report("hand-over on resign", next.atNanos() - resignedAt);
    }

    @Test
    void killedLeadersSuccessorIsGrantedOnceItsLeaseEnds() throws Exception {
        ChildCandidate child = child();
        long childEpoch = epochOf(child.await("GRANTED", 30_000));
        campaign("parent", QUICK);
        Thread.sleep(200);

        long killedAt = System.nanoTime();
        child.kill();
        LeaderLog.Event next = log.awaitGrants(1, 30_000 + 3 * clients.lease().toMillis());

        assertThat(next.epoch().value()).isGreaterThan(childEpoch);
        report(
                "failover after kill -9 of the leader (lease " + clients.lease().toMillis() + " ms)",
                next.atNanos() - killedAt);
    }

    @Test
    void stoppedLeaderIsNoLongerLeaderWhenItResumesAfterItsSuccessorWasGranted() throws Exception {
        ChildCandidate child = child();
        long childEpoch = epochOf(child.await("GRANTED", 30_000));
        campaign("parent", QUICK);
        Thread.sleep(200);

        long stoppedAt = System.nanoTime();
        child.pause();
        LeaderLog.Event next = log.awaitGrants(1, 30_000 + 3 * clients.lease().toMillis());
        child.resume();

        assertThat(child.await("RESUMED", 30_000).text()).isEqualTo("RESUMED false");
        assertThat(epochOf(child.await("REVOKED", 30_000))).isEqualTo(childEpoch);
        assertThat(child.answersAfter(next.atNanos()))
                .as("the stopped leader claimed to lead after its successor was granted")
                .filteredOn(line -> line.text().startsWith("LEADING"))
                .isEmpty();
        assertThat(next.epoch().value()).isGreaterThan(childEpoch);
        report(
                "failover after SIGSTOP of the leader (lease " + clients.lease().toMillis() + " ms)",
                next.atNanos() - stoppedAt);
    }

    private ChildCandidate child() throws Exception {
        ChildCandidate child = new ChildCandidate(name, clients());
        resources.add(child);
        return child;
    }

    private Leadership campaign(String candidate, CampaignOptions options) {
        Leadership leadership = Leadership.campaign(clients().newRegistry(), name, log.listener(candidate), options);
        resources.add(leadership);
        candidates.put(candidate, leadership);
        return leadership;
    }

    /** This test's clients use {@link #STEADY_LEASE}; called before the first client opens. */
    private void steadyLeases() {
        if (clients != null) {
            throw new IllegalStateException("Clients already open with lease " + clients.lease());
        }
        clients = newClients().withLeaseAtLeast(STEADY_LEASE);
        resources.add(0, clients);
    }

    private BackendClients clients() {
        if (clients == null) {
            clients = newClients();
            resources.add(0, clients);
        }
        return clients;
    }

    private static String valueOf(String candidate) {
        return "http://" + candidate + ".example:8080/jobs";
    }

    private static long epochOf(ChildCandidate.Line line) {
        return Long.parseLong(line.text().substring(line.text().indexOf(' ') + 1));
    }

    private void report(String what, long nanos) {
        System.out.printf("%s, %s: %.1f ms%n", getClass().getSimpleName(), what, nanos / 1e6);
    }
}
