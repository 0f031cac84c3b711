package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.actuate.DistributedLocksEndpoint.Hold;
import dev.distlock.spring.actuate.DistributedLocksEndpoint.KeyHolder;
import dev.distlock.spring.actuate.DistributedLocksEndpoint.Release;
import dev.distlock.spring.actuate.LeadershipSection.LeaderState;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.LeadershipAutoConfiguration;
import dev.distlock.spring.metrics.FailingLockRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class DistributedLocksEndpointTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    private final ApplicationContextRunner exposed =
            runner.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks");

    @Test
    void endpointIsOffUnlessExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(DistributedLocksEndpoint.class));
        exposed.run(context -> assertThat(context).hasSingleBean(DistributedLocksEndpoint.class));
    }

    @Test
    void endpointIsOffWithoutActuator() {
        exposed.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DistributedLocksEndpoint.class);
                });
    }

    @Test
    void listsTheHoldsOfThisInstance() {
        exposed.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            try (LockHandle handle = registry.obtain("stock:sku-1").acquire()) {
                List<Hold> holds = context.getBean(DistributedLocksEndpoint.class)
                        .locks()
                        .registries()
                        .get("lockRegistry")
                        .holds();
                assertThat(holds).hasSize(1);
                Hold hold = holds.get(0);
                assertThat(hold.key()).isEqualTo("stock:sku-1");
                assertThat(hold.backend()).isEqualTo("memory");
                assertThat(hold.token()).isEqualTo(handle.token().value());
                assertThat(hold.valid()).isTrue();
                assertThat(hold.renewed()).isTrue();
                assertThat(hold.owner()).isEqualTo(Thread.currentThread().getName());
                assertThat(hold.kind()).isEqualTo("EXCLUSIVE");
                assertThat(hold.heldSince()).isNotBlank();
                assertThat(hold.leaseLeft()).startsWith("PT");
            }
        });
    }

    @Test
    void listsReadAndWriteHoldsWithTheirSide() {
        exposed.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            try (LockHandle write =
                            registry.readWriteLock("stock:sku-2").writeLock().acquire();
                    LockHandle read =
                            registry.readWriteLock("stock:sku-2").readLock().acquire()) {
                List<Hold> holds = context.getBean(DistributedLocksEndpoint.class)
                        .locks()
                        .registries()
                        .get("lockRegistry")
                        .holds();
                assertThat(holds)
                        .extracting(Hold::key, Hold::kind, Hold::token)
                        .containsExactlyInAnyOrder(
                                org.assertj.core.groups.Tuple.tuple(
                                        "stock:sku-2", "WRITE", write.token().value()),
                                org.assertj.core.groups.Tuple.tuple(
                                        "stock:sku-2", "READ", read.token().value()));
            }
        });
    }

    @Test
    void showsWhoLeadsEachLeadershipNameReadFromTheServer() {
        exposed.withConfiguration(AutoConfigurations.of(LeadershipAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.leadership.names=jobs",
                        "distributed-lock.leadership.value=http://me.example:8080",
                        "distributed-lock.leadership.observed-names=elsewhere,nobody")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    FencingToken ours = context.getBean(LeaderElection.class)
                            .epoch("jobs")
                            .orElseThrow(() -> new AssertionError("start-up waits for the free name"));
                    try (LockHandle other =
                            registry.obtain("elsewhere").withNote("v-else").acquire()) {
                        Map<String, LeaderState> leaders = context.getBean(DistributedLocksEndpoint.class)
                                .locks()
                                .leaders();

                        assertThat(leaders).containsOnlyKeys("elsewhere", "jobs", "nobody");
                        LeaderState jobs = leaders.get("jobs");
                        assertThat(jobs.led()).isTrue();
                        assertThat(jobs.thisInstance()).isTrue();
                        assertThat(jobs.epoch()).isEqualTo(ours.value());
                        assertThat(jobs.value()).isEqualTo("http://me.example:8080");
                        assertThat(jobs.holder()).endsWith("thread distlock-leader-jobs");
                        assertThat(jobs.backend()).isEqualTo("memory");
                        LeaderState elsewhere = leaders.get("elsewhere");
                        assertThat(elsewhere.led()).isTrue();
                        assertThat(elsewhere.thisInstance())
                                .as("not a term of this instance's")
                                .isFalse();
                        assertThat(elsewhere.epoch()).isEqualTo(other.token().value());
                        assertThat(elsewhere.value()).isEqualTo("v-else");
                        assertThat(leaders.get("nobody").led()).isFalse();
                        assertThat(leaders.get("nobody").error()).isNull();
                    }
                });
    }

    @Test
    void showsNoLeadersWithoutLeaderElection() {
        exposed.run(context -> assertThat(
                        context.getBean(DistributedLocksEndpoint.class).locks().leaders())
                .isEmpty());
    }

    @Test
    void aBackendThatCannotTellTheHolderIsReportedNotFailed() {
        exposed.withPropertyValues("distributed-lock.startup-check.mode=off")
                .withBean("lockRegistry", LockRegistry.class, () -> new FailingLockRegistry(""))
                .run(context -> {
                    DistributedLocksEndpoint endpoint = context.getBean(DistributedLocksEndpoint.class);
                    KeyHolder holder = endpoint.holder(new String[] {"stock", "sku-1"})
                            .registries()
                            .get("lockRegistry");
                    assertThat(holder.held()).isFalse();
                    assertThat(holder.error()).contains("cannot tell who holds a key");
                    Release release = endpoint.forceRelease(new String[] {"stock:sku-1"})
                            .registries()
                            .get("lockRegistry");
                    assertThat(release.released()).isFalse();
                    assertThat(release.error()).startsWith("The failing backend cannot");
                });
    }

    @Test
    void forceReleaseIsOffUnlessAccessIsUnrestricted() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistributedLockAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class,
                        EndpointAutoConfiguration.class,
                        WebEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=memory",
                        "management.endpoints.web.exposure.include=distributedlocks");
        web.run(context -> assertThat(operations(context.getBean(WebEndpointsSupplier.class)))
                .containsExactlyInAnyOrder(OperationType.READ, OperationType.READ));
        web.withPropertyValues("management.endpoint.distributedlocks.access=UNRESTRICTED")
                .run(context -> assertThat(operations(context.getBean(WebEndpointsSupplier.class)))
                        .containsExactlyInAnyOrder(OperationType.READ, OperationType.READ, OperationType.DELETE));
    }

    private static List<OperationType> operations(WebEndpointsSupplier endpoints) {
        ExposableWebEndpoint endpoint = endpoints.getEndpoints().stream()
                .filter(candidate -> candidate.getEndpointId().toString().equals("distributedlocks"))
                .findFirst()
                .orElseThrow();
        return endpoint.getOperations().stream().map(WebOperation::getType).toList();
    }
}
