package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.spring.DistributedLock.OnFailure;
import dev.distlock.spring.actuate.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.actuate.SemaphoreSection.Semaphore;
import dev.distlock.spring.metrics.DistributedLockMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link DistributedSemaphore} methods on two application contexts over one in-memory store, standing for two JVMs. */
class DistributedSemaphoreTest {

    private final MemoryLockStore store = new MemoryLockStore();

    private ApplicationContextRunner instance(String name) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=memory", "management.endpoints.web.exposure.include=distributedlocks")
                .withBean(
                        LockRegistry.class,
                        () -> MemoryLockRegistry.builder().store(store).build())
                .withBean(SimpleMeterRegistry.class)
                .withBean(name, Exports.class, Exports::new);
    }

    /** Methods that block until the test lets them go, so a test can count the calls inside. */
    public static class Exports {

        @DistributedSemaphore(name = "exports", permits = 2, waitTime = "0s")
        public String export(CountDownLatch entered, CountDownLatch done) throws InterruptedException {
            entered.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            return "exported";
        }

        @DistributedSemaphore(name = "exports", permits = 2, waitTime = "0s", onFailure = OnFailure.SKIP)
        public Optional<String> exportIfFree() {
            return Optional.of("exported");
        }

        @DistributedSemaphore(name = "tenant", permits = 1, key = "#tenant", waitTime = "0s")
        public String forTenant(String tenant, CountDownLatch entered, CountDownLatch done)
                throws InterruptedException {
            entered.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            return tenant;
        }

        @DistributedSemaphore(name = "batch", permits = 3, permitsPerCall = 2, waitTime = "${test.batch-wait:0s}")
        public String batch(CountDownLatch entered, CountDownLatch done) throws InterruptedException {
            entered.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            return "batched";
        }
    }

    @Test
    void atMostThePermitsRunAtOnceAcrossInstancesAndTheRestFailOrSkip() {
        instance("exportsA")
                .run(a -> instance("exportsB").run(b -> {
                    CountDownLatch done = new CountDownLatch(1);
                    CompletableFuture<String> first = inside(a, done);
                    CompletableFuture<String> second = inside(b, done);

                    assertThatThrownBy(() -> exports(a).export(new CountDownLatch(1), done))
                            .isInstanceOf(LockNotAcquiredException.class)
                            .hasMessageContaining(
                                    "Semaphore 'exports' on memory had no 1 free of its 2 permits within 0s")
                            .hasMessageContaining("Exports.export()")
                            .satisfies(e -> assertThat(((LockNotAcquiredException) e).key())
                                    .isEqualTo("exports"));
                    assertThat(exports(b).exportIfFree())
                            .as("skipped: no permit free")
                            .isEmpty();

                    MeterRegistry meters = a.getBean(MeterRegistry.class);
                    assertThat(meters.get("distlock.semaphore.permits")
                                    .tags("semaphore", "exports", "backend", "memory")
                                    .gauge()
                                    .value())
                            .as("permits this instance holds")
                            .isEqualTo(1.0);

                    Semaphore listed = endpointSemaphores(a).stream()
                            .filter(semaphore -> semaphore.name().equals("exports"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(listed.permits()).isEqualTo(2);
                    assertThat(listed.permitsHeldHere()).isEqualTo(1);
                    assertThat(listed.backend()).isEqualTo("memory");
                    assertThat(listed.holders())
                            .as("both instances' permits, from the server")
                            .hasSize(2);
                    assertThat(listed.holders())
                            .allSatisfy(holder -> assertThat(holder.holder()).contains("permits=2"));

                    done.countDown();
                    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
                    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
                    assertThat(exports(b).exportIfFree()).contains("exported");
                    assertThat(endpointSemaphores(a))
                            .filteredOn(semaphore -> semaphore.name().equals("exports"))
                            .singleElement()
                            .satisfies(
                                    semaphore -> assertThat(semaphore.holders()).isEmpty());
                    assertThat(meters.get("distlock.semaphore.permits")
                                    .tags("semaphore", "exports")
                                    .gauge()
                                    .value())
                            .isZero();
                }));
    }

    @Test
    void aKeyMakesOneSemaphorePerValue() {
        instance("exports").run(context -> {
            CountDownLatch done = new CountDownLatch(1);
            CountDownLatch entered = new CountDownLatch(1);
            CompletableFuture<String> acme = CompletableFuture.supplyAsync(
                    () -> call(() -> exports(context).forTenant("acme", entered, done)));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> exports(context).forTenant("acme", new CountDownLatch(1), done))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("'tenant:acme'");
            List<Semaphore> listed = endpointSemaphores(context);
            assertThat(listed)
                    .filteredOn(semaphore -> semaphore.declaredName().equals("tenant"))
                    .extracting(Semaphore::name)
                    .containsExactly("tenant:acme");
            CountDownLatch other = new CountDownLatch(1);
            CountDownLatch released = new CountDownLatch(0);
            assertThat(exports(context).forTenant("globex", other, released)).isEqualTo("globex");
            done.countDown();
            assertThat(acme.get(10, TimeUnit.SECONDS)).isEqualTo("acme");
            assertThat(endpointSemaphores(context))
                    .as("an idle keyed semaphore is not listed")
                    .noneMatch(semaphore -> semaphore.declaredName().equals("tenant"));
        });
    }

    @Test
    void aCallHoldsPermitsPerCallSoOnlyOneBatchRunsInThree() {
        instance("exports").withPropertyValues("test.batch-wait=100ms").run(context -> {
            CountDownLatch done = new CountDownLatch(1);
            CountDownLatch entered = new CountDownLatch(1);
            CompletableFuture<String> first = CompletableFuture.supplyAsync(
                    () -> call(() -> exports(context).batch(entered, done)));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> exports(context).batch(new CountDownLatch(1), done))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("had no 2 free of its 3 permits within 100ms");
            done.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("batched");
        });
    }

    /** Created on first use, after start-up: its semaphore is declared then. */
    public static class Reports {
        @DistributedSemaphore(name = "reports", permits = 3, waitTime = "0s")
        public int permitsHeld(MeterRegistry meters) {
            return (int) meters.get("distlock.semaphore.permits")
                    .tags("semaphore", "reports", "backend", "memory")
                    .gauge()
                    .value();
        }
    }

    @Test
    void aSemaphoreDeclaredByABeanCreatedAfterStartUpHasItsGaugeToo() {
        instance("exports")
                .withBean("reports", Reports.class, Reports::new, definition -> definition.setLazyInit(true))
                .run(context -> {
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.find("distlock.semaphore.permits")
                                    .tags("semaphore", "reports")
                                    .gauge())
                            .as("not declared before the bean exists")
                            .isNull();
                    assertThat(context.getBean(Reports.class).permitsHeld(meters))
                            .as("the gauge, read inside the method")
                            .isEqualTo(1);
                });
    }

    public static class TooManyPerCall {
        @DistributedSemaphore(name = "x", permits = 2, permitsPerCall = 3)
        public void run() {}
    }

    public static class NoPermits {
        @DistributedSemaphore(name = "x", permits = 0)
        public void run() {}
    }

    public static class Asynchronous {
        @DistributedSemaphore(name = "x", permits = 2)
        public CompletableFuture<String> run() {
            return CompletableFuture.completedFuture("x");
        }
    }

    public static class TwoCounts {
        @DistributedSemaphore(name = "shared", permits = 2)
        public void first() {}

        @DistributedSemaphore(name = "shared", permits = 3)
        public void second() {}
    }

    @Test
    void badDeclarationsFailStartUpNamingTheMethod() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(AopAutoConfiguration.class, DistributedLockAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory");
        runner.withBean(TooManyPerCall.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("TooManyPerCall.run()")
                        .hasMessageContaining("asks for 3 permits per call of a semaphore of 2"));
        runner.withBean(NoPermits.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("declares 0 permits; a semaphore has 1 to 1024"));
        runner.withBean(Asynchronous.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("Asynchronous.run()")
                        .hasMessageContaining("methods that return a plain value only"));
        runner.withBean(TwoCounts.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("declares semaphore 'shared' with")
                        .hasMessageContaining("Declare one semaphore the same way everywhere"));
    }

    private static Exports exports(AssertableApplicationContext context) {
        return context.getBean(Exports.class);
    }

    private static CompletableFuture<String> inside(AssertableApplicationContext context, CountDownLatch done)
            throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<String> call =
                CompletableFuture.supplyAsync(() -> call(() -> exports(context).export(entered, done)));
        assertThat(entered.await(10, TimeUnit.SECONDS))
                .as("the call got a permit")
                .isTrue();
        return call;
    }

    private static List<Semaphore> endpointSemaphores(AssertableApplicationContext context) {
        return context.getBean(DistributedLocksEndpoint.class).locks().semaphores();
    }

    private interface Call {
        String run() throws Exception;
    }

    private static String call(Call call) {
        try {
            return call.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
