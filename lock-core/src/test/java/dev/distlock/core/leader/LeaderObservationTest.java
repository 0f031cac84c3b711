package dev.distlock.core.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who leads, read from the server by any instance: {@link Leadership#leaderOf} and {@link Leadership#observe}. */
class LeaderObservationTest {

    private static final String NAME = "leader";
    private static final Duration LEASE = Duration.ofMillis(600);
    private static final long WAIT = 10_000;
    private static final CampaignOptions QUICK = CampaignOptions.defaults()
            .withCheckInterval(Duration.ofMillis(20))
            .withRejoinDelay(Duration.ofMillis(50))
            .withRetryDelay(Duration.ofMillis(50));
    private static final ObserveOptions OFTEN = ObserveOptions.defaults().withPollInterval(Duration.ofMillis(10));

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, Leadership> candidates = new ConcurrentHashMap<>();
    private final LeaderLog log = new LeaderLog();
    private final MemoryLockStore store = new MemoryLockStore();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void leaderOfIsEmptyBeforeATermShowsTheLeaderDuringItAndIsEmptyAfter() throws Exception {
        LockRegistry observer = registry();
        assertThat(Leadership.leaderOf(observer, NAME)).isEmpty();

        Leadership leadership = campaign("a", QUICK.withValue("http://node-a.example:8080"));
        FencingToken epoch = log.awaitGrants(1, WAIT).epoch();

        Leader leader = Leadership.leaderOf(observer, NAME).orElseThrow();
        assertThat(leader.name()).isEqualTo(NAME);
        assertThat(leader.epoch()).isEqualTo(epoch).isEqualTo(leadership.epoch().orElseThrow());
        assertThat(leader.value()).contains("http://node-a.example:8080");
        assertThat(leader.holder())
                .contains("pid " + ProcessHandle.current().pid())
                .endsWith("thread distlock-leader-" + NAME);
        assertThat(leader.leaseLeft()).isPresent();
        assertThat(leadership.value()).contains("http://node-a.example:8080");

        leadership.close();

        assertThat(Leadership.leaderOf(observer, NAME)).isEmpty();
        assertThat(leadership.value()).isEmpty();
    }

    @Test
    void theListenerIsToldTheValueWithTheGrant() throws Exception {
        List<String> granted = new CopyOnWriteArrayList<>();
        LeadershipListener recorded = log.listener("a");
        resources.add(Leadership.campaign(
                registry(),
                NAME,
                new LeadershipListener() {
                    @Override
                    public void granted(FencingToken epoch) {
                        throw new AssertionError("the campaign calls granted(epoch, value)");
                    }

                    @Override
                    public void granted(FencingToken epoch, Optional<String> value) {
                        granted.add(epoch + " " + value.orElse("(none)"));
                        recorded.granted(epoch);
                    }

                    @Override
                    public void revoked(FencingToken epoch) {
                        recorded.revoked(epoch);
                    }
                },
                QUICK.withValue("10.0.0.7:9000")));

        FencingToken epoch = log.awaitGrants(1, WAIT).epoch();

        assertThat(granted).containsExactly(epoch + " 10.0.0.7:9000");
    }

    @Test
    void aValueThatCannotBeRecordedFailsTheCampaignNamingTheLeadershipAndTheBackend() {
        LockRegistry registry = registry();

        assertThatThrownBy(() -> Leadership.campaign(registry, NAME, log.listener("a"), QUICK.withValue("caf\u00e9")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + NAME + "'")
                .hasMessageContaining("memory")
                .hasMessageContaining("printable ASCII");
        assertThatThrownBy(() -> Leadership.campaign(
                        registry, NAME, log.listener("a"), QUICK.withValue("x".repeat(LockHolder.MAX_NOTE_LENGTH + 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + LockHolder.MAX_NOTE_LENGTH);
    }

    @Test
    void aChangedValueIsPublishedFromTheNextTermOn() throws Exception {
        LockRegistry observer = registry();
        Leadership leadership = campaign("a", QUICK.withValue("v1"));
        FencingToken first = log.awaitGrants(1, WAIT).epoch();

        leadership.changeValue("v2");

        assertThat(Leadership.leaderOf(observer, NAME).orElseThrow().value())
                .as("the current term keeps its value")
                .contains("v1");
        assertThat(leadership.value()).contains("v1");
        leadership.resign();
        FencingToken second = log.awaitGrants(2, WAIT).epoch();
        Leader leader = Leadership.leaderOf(observer, NAME).orElseThrow();
        assertThat(leader.epoch()).isEqualTo(second).isGreaterThan(first);
        assertThat(leader.value()).contains("v2");
        assertThat(leadership.value()).contains("v2");
    }

    @Test
    void anObserverSeesEveryTermOfResignRoundsWithItsHolderEpochAndValue() throws Exception {
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(registry(), NAME, observed, OFTEN));
        observed.await("no leader", ObservedLeaders.Told::isNoLeader, WAIT);
        for (String candidate : List.of("a", "b", "c")) {
            campaign(candidate, QUICK.withValue("http://" + candidate + ".example"));
        }

        int terms = 10;
        for (int term = 1; term <= terms; term++) {
            LeaderLog.Event granted = log.awaitGrants(term, WAIT);
            Leader seen = observed.awaitLeader(granted.epoch().value(), WAIT);
            assertThat(seen.value()).contains("http://" + granted.candidate() + ".example");
            assertThat(seen.holder()).endsWith("thread distlock-leader-" + NAME);
            candidates.get(granted.candidate()).resign();
        }
        log.awaitGrants(terms + 1, WAIT);

        List<Long> granted = log.grantedEpochs();
        observed.awaitLeader(granted.get(terms), WAIT);
        assertThat(observed.epochs()).containsExactlyElementsOf(granted);
        assertThat(observed.told()).noneMatch(ObservedLeaders.Told::isUnknown);
        assertThat(observed.names()).containsOnly(NAME);
    }

    @Test
    void quickResignRoundsNeverShowAnObserverAnEpochTwiceOrGoingBackwards() throws Exception {
        ObservedLeaders far = new ObservedLeaders();
        ObservedLeaders near = new ObservedLeaders();
        ObserveOptions constantly = ObserveOptions.defaults().withPollInterval(Duration.ofMillis(1));
        resources.add(Leadership.observe(registry(), NAME, far, constantly));
        LockRegistry shared = registry();
        resources.add(Leadership.observe(shared, NAME, near, constantly));
        campaign("a", shared, QUICK);
        for (String candidate : List.of("b", "c")) {
            campaign(candidate, QUICK);
        }

        log.resignRounds(candidates, 30, WAIT);

        far.awaitLeader(log.grantedEpochs().get(30), WAIT);
        near.awaitLeader(log.grantedEpochs().get(30), WAIT);
        for (ObservedLeaders observed : List.of(far, near)) {
            observed.assertEpochsRiseStrictly();
            assertThat(log.grantedEpochs()).containsAll(observed.epochs());
        }
    }

    @Test
    void theEpochCheckCatchesARepeatAndAStepBack() {
        ObservedLeaders repeated = new ObservedLeaders();
        repeated.leaderChanged(NAME, Optional.of(leader(5)));
        repeated.leaderChanged(NAME, Optional.empty());
        repeated.leaderChanged(NAME, Optional.of(leader(5)));
        ObservedLeaders backwards = new ObservedLeaders();
        backwards.leaderChanged(NAME, Optional.of(leader(5)));
        backwards.leaderChanged(NAME, Optional.of(leader(4)));

        assertThatThrownBy(repeated::assertEpochsRiseStrictly).isInstanceOf(AssertionError.class);
        assertThatThrownBy(backwards::assertEpochsRiseStrictly).isInstanceOf(AssertionError.class);
    }

    @Test
    void aCandidateOfTheSameRegistryIsSeenWithoutWaitingForTheNextRead() throws Exception {
        LockRegistry shared = registry();
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(
                shared, NAME, observed, ObserveOptions.defaults().withPollInterval(Duration.ofHours(1))));
        observed.await("no leader", ObservedLeaders.Told::isNoLeader, WAIT);

        // Stays out after resigning, so that the name is free until the test ends.
        Leadership leadership = campaign("a", shared, QUICK.withValue("here").withRejoinDelay(Duration.ofMinutes(5)));
        FencingToken epoch = log.awaitGrants(1, WAIT).epoch();

        assertThat(observed.awaitLeader(epoch.value(), WAIT).value())
                .as("told within the hour between reads")
                .contains("here");
        leadership.resign();
        List<ObservedLeaders.Told> told = observed.awaitCalls(3, WAIT);
        assertThat(told).map(ObservedLeaders.Told::toString).containsExactly("none", epoch + "=here", "none");
    }

    @Test
    void closingTheSubscriptionStopsItsReads() throws Exception {
        ReadControlledRegistry registry = new ReadControlledRegistry(registry());
        ObservedLeaders observed = new ObservedLeaders();
        LeaderSubscription subscription = Leadership.observe(registry, NAME, observed, OFTEN);
        resources.add(subscription);
        observed.awaitCalls(1, WAIT);
        while (registry.reads() < 5) {
            Thread.sleep(5);
        }

        subscription.close();
        int reads = registry.reads();
        campaign("a", QUICK);
        log.awaitGrants(1, WAIT);
        Thread.sleep(20 * OFTEN.pollInterval().toMillis());

        assertThat(registry.reads()).as("reads after close").isEqualTo(reads);
        assertThat(observed.told()).hasSize(1);
    }

    @Test
    void anOutageIsToldAsUnknownOnceAndTheLeaderAgainWhenItEnds() throws Exception {
        ReadControlledRegistry registry = new ReadControlledRegistry(registry());
        campaign("a", QUICK.withValue("v"));
        long epoch = log.awaitGrants(1, WAIT).epoch().value();
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(registry, NAME, observed, OFTEN));
        observed.awaitLeader(epoch, WAIT);

        registry.fail();
        observed.await("unknown", ObservedLeaders.Told::isUnknown, WAIT);
        int failed = registry.reads();
        while (registry.reads() < failed + 5) {
            Thread.sleep(5);
        }
        registry.recover();
        List<ObservedLeaders.Told> told = observed.awaitCalls(3, WAIT);

        assertThat(told).hasSize(3);
        assertThat(told.get(1).unknown()).hasMessageContaining("connection refused");
        assertThat(told.get(2).leader().map(l -> l.epoch().value()))
                .as("the leader, told again once known")
                .contains(epoch);
    }

    @Test
    void aReadWithoutAnswerIsToldUnknownAfterTheCallTimeoutAndNotRepeatedUntilItReturns() throws Exception {
        ReadControlledRegistry registry = new ReadControlledRegistry(registry());
        registry.holdReads();
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(registry, NAME, observed, OFTEN.withCallTimeout(Duration.ofMillis(100))));

        ObservedLeaders.Told unknown = observed.await("unknown", ObservedLeaders.Told::isUnknown, WAIT);
        assertThat(unknown.unknown()).hasMessageContaining("'" + NAME + "'").hasMessageContaining("memory");
        Thread.sleep(300);
        assertThat(registry.reads())
                .as("reads while the first is without answer")
                .isEqualTo(1);

        registry.answer();

        observed.await("no leader", ObservedLeaders.Told::isNoLeader, WAIT);
        assertThat(observed.told()).hasSize(2);
    }

    @Test
    void aReadShowingAnOlderTermIsIgnored() throws Exception {
        ReadControlledRegistry registry = new ReadControlledRegistry(registry());
        for (long epoch : new long[] {5, 3, 5, 7}) {
            registry.script(Optional.of(
                    new LockHolder(NAME, "app@host pid 1 thread t", FencingToken.of(epoch), Optional.empty())));
        }
        ObservedLeaders observed = new ObservedLeaders();
        resources.add(Leadership.observe(registry, NAME, observed, OFTEN));

        observed.await("no leader", ObservedLeaders.Told::isNoLeader, WAIT);

        assertThat(observed.told()).map(ObservedLeaders.Told::toString).containsExactly("5", "7", "none");
    }

    @Test
    void aBadNameIsRefusedBeforeAnythingIsRead() {
        ReadControlledRegistry registry = new ReadControlledRegistry(registry());

        assertThatThrownBy(() -> Leadership.observe(registry, " ", new ObservedLeaders()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memory");
        assertThat(registry.reads()).isZero();
    }

    private static Leader leader(long epoch) {
        return new Leader(NAME, "h", FencingToken.of(epoch), Optional.empty(), Optional.empty());
    }

    private LockRegistry registry() {
        MemoryLockRegistry registry =
                MemoryLockRegistry.builder().store(store).leaseTime(LEASE).build();
        resources.add(registry);
        return registry;
    }

    private Leadership campaign(String candidate, CampaignOptions options) {
        return campaign(candidate, registry(), options);
    }

    private Leadership campaign(String candidate, LockRegistry registry, CampaignOptions options) {
        Leadership leadership = Leadership.campaign(registry, NAME, log.listener(candidate), options);
        resources.add(leadership);
        candidates.put(candidate, leadership);
        return leadership;
    }
}
