package dev.distlock.spring.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.Leader;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.NestedExceptionUtils;

class LeaderElectionTest {

    private static final MemoryLockStore STORE = new MemoryLockStore();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    DistributedLockAutoConfiguration.class,
                    LeadershipAutoConfiguration.class))
            .withPropertyValues(
                    "distributed-lock.leadership.names=jobs",
                    "distributed-lock.leadership.check-interval=20ms",
                    "distributed-lock.leadership.rejoin-delay=50ms")
            .withUserConfiguration(Beans.class);

    /** A job that one instance of the cluster should run. */
    public static class Jobs {

        private int runs;

        @LeaderOnly("jobs")
        public Boolean tick() {
            runs++;
            return true;
        }

        @LeaderOnly("${test.report-leadership:reports}")
        public Optional<String> report() {
            return Optional.of("report");
        }

        public int runs() {
            return runs;
        }
    }

    /** The leadership events an application received. */
    public static class Events {

        final List<ApplicationEvent> received = new CopyOnWriteArrayList<>();

        @EventListener
        public void granted(LeadershipGrantedEvent event) {
            received.add(event);
        }

        @EventListener
        public void revoked(LeadershipRevokedEvent event) {
            received.add(event);
        }

        @EventListener
        public void leaderChanged(LeaderChangedEvent event) {
            received.add(event);
        }

        @EventListener
        public void leaderUnknown(LeaderUnknownEvent event) {
            received.add(event);
        }

        /** The leaders told by LeaderChangedEvents of {@code name}, as "epoch=value" or "none". */
        List<String> leadersOf(String name) {
            return received.stream()
                    .filter(event -> event instanceof LeaderChangedEvent changed
                            && changed.name().equals(name))
                    .map(event -> ((LeaderChangedEvent) event)
                            .leader()
                            .map(leader -> leader.epoch() + "=" + leader.value().orElse(""))
                            .orElse("none"))
                    .toList();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean(destroyMethod = "close")
        LockRegistry lockRegistry() {
            return MemoryLockRegistry.builder()
                    .store(STORE)
                    .leaseTime(Duration.ofSeconds(1))
                    .build();
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        Events events() {
            return new Events();
        }
    }

    @Test
    void oneOfThreeApplicationsLeadsAndOnlyItRunsLeaderOnlyMethods() {
        runner.run(a -> runner.run(b -> runner.run(c -> {
            List<AssertableApplicationContext> apps = List.of(a, b, c);
            await(() -> apps.stream().anyMatch(app -> election(app).isLeader("jobs")));

            List<AssertableApplicationContext> leaders =
                    apps.stream().filter(app -> election(app).isLeader("jobs")).toList();
            assertThat(leaders).hasSize(1);
            AssertableApplicationContext leader = leaders.get(0);
            for (AssertableApplicationContext app : apps) {
                assertThat(app.getBean(Jobs.class).tick()).isEqualTo(app == leader ? Boolean.TRUE : null);
                assertThat(app.getBean(Jobs.class).runs()).isEqualTo(app == leader ? 1 : 0);
            }
            assertThat(leader.getBean(Events.class).received)
                    .filteredOn(event -> event instanceof LeadershipEvent leadership
                            && leadership.name().equals("jobs"))
                    .singleElement()
                    .isInstanceOfSatisfying(LeadershipGrantedEvent.class, granted -> {
                        assertThat(granted.name()).isEqualTo("jobs");
                        assertThat(election(leader).epoch("jobs")).contains(granted.epoch());
                    });
        })));
    }

    @Test
    void theFirstCallOfALeaderOnlyMethodRunsWhenItsNameIsFree() {
        // Not in distributed-lock.leadership.names: known only from the annotation.
        runner.withPropertyValues("test.report-leadership=first-call")
                .run(app -> assertThat(app.getBean(Jobs.class).report())
                        .as("the first call right after start-up")
                        .contains("report"));
    }

    @Test
    void resigningLeaderIsRevokedAndAnotherApplicationTakesOver() {
        runner.run(a -> runner.run(b -> {
            List<AssertableApplicationContext> apps = List.of(a, b);
            await(() -> apps.stream().anyMatch(app -> election(app).isLeader("jobs")));
            AssertableApplicationContext leader = election(a).isLeader("jobs") ? a : b;
            AssertableApplicationContext other = leader == a ? b : a;

            election(leader).resign("jobs");

            await(() -> election(other).isLeader("jobs"));
            assertThat(election(leader).isLeader("jobs")).isFalse();
            assertThat(leader.getBean(Events.class).received)
                    .filteredOn(event -> event instanceof LeadershipEvent leadership
                            && leadership.name().equals("jobs"))
                    .extracting(event -> event.getClass().getSimpleName())
                    .startsWith("LeadershipGrantedEvent", "LeadershipRevokedEvent");
            assertThat(other.getBean(Jobs.class).tick()).isTrue();
        }));
    }

    @Test
    void leaderOnlyMethodReturnsEmptyWhileItsNameIsHeldElsewhereAndRunsOnceItLeads() throws Exception {
        String name = "reports-" + System.nanoTime();
        try (MemoryLockRegistry elsewhere =
                MemoryLockRegistry.builder().store(STORE).build()) {
            LockHandle held =
                    elsewhere.obtain(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            runner.withPropertyValues("test.report-leadership=" + name).run(app -> {
                Jobs jobs = app.getBean(Jobs.class);
                assertThat(jobs.report()).as("while held elsewhere").isEmpty();

                held.close();

                await(() -> election(app).isLeader(name));
                assertThat(jobs.report()).contains("report");
            });
        }
    }

    @Test
    void everyApplicationSeesWhoLeadsWithTheValueItPublishes() {
        ApplicationContextRunner observing = runner.withPropertyValues(
                "distributed-lock.leadership.observed-names=jobs", "distributed-lock.leadership.observe-interval=20ms");
        observing
                .withPropertyValues("distributed-lock.leadership.value=http://a.example:8080")
                .run(a -> observing
                        .withPropertyValues("distributed-lock.leadership.value=http://b.example:8080")
                        .run(b -> {
                            List<AssertableApplicationContext> apps = List.of(a, b);
                            await(() ->
                                    apps.stream().anyMatch(app -> election(app).isLeader("jobs")));
                            AssertableApplicationContext leader = election(a).isLeader("jobs") ? a : b;
                            FencingToken epoch = election(leader).epoch("jobs").orElseThrow();
                            String value = leader == a ? "http://a.example:8080" : "http://b.example:8080";

                            for (AssertableApplicationContext app : apps) {
                                Leader seen = app.getBean(LeaderObservation.class)
                                        .leaderOf("jobs")
                                        .orElseThrow();
                                assertThat(seen.epoch()).isEqualTo(epoch);
                                assertThat(seen.value()).contains(value);
                                await(() -> app.getBean(Events.class)
                                        .leadersOf("jobs")
                                        .contains(epoch + "=" + value));
                            }
                            assertThat(leader.getBean(Events.class).received)
                                    .filteredOn(event -> event instanceof LeadershipGrantedEvent granted
                                            && granted.name().equals("jobs"))
                                    .map(event -> ((LeadershipGrantedEvent) event).value())
                                    .containsExactly(Optional.of(value));
                        }));
    }

    @Test
    void aValueThatCannotBePublishedFailsStartUpNamingTheLeadership() {
        runner.withPropertyValues("distributed-lock.leadership.value=caf\u00e9").run(app -> {
            assertThat(app).hasFailed();
            assertThat(NestedExceptionUtils.getMostSpecificCause(app.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'jobs'")
                    .hasMessageContaining("memory")
                    .hasMessageContaining("printable ASCII");
        });
    }

    @Test
    void leadershipCanBeSwitchedOff() {
        runner.withPropertyValues("distributed-lock.leadership.enabled=false").run(app -> {
            assertThat(app).doesNotHaveBean(LeaderElection.class);
            assertThat(app).doesNotHaveBean(LeaderObservation.class);
        });
    }

    private static LeaderElection election(AssertableApplicationContext app) {
        return app.getBean(LeaderElection.class);
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("Condition not met within 10 s");
            }
            Thread.sleep(10);
        }
    }
}
