package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.LockContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

class LockShutdownTest {

    /** The server both instances share. */
    private final MemoryLockStore store = new MemoryLockStore();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockShutdownAutoConfiguration.class))
            .withBean(
                    "lockRegistry",
                    LockRegistry.class,
                    () -> MemoryLockRegistry.builder().store(store).build())
            .withBean(Jobs.class);

    /** Its state is read through methods: the bean is a class proxy, whose own fields stay empty. */
    public static class Jobs {

        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);
        private volatile LockHandle handle;

        public boolean awaitStarted() throws InterruptedException {
            return started.await(10, TimeUnit.SECONDS);
        }

        public void finish() {
            finish.countDown();
        }

        public LockHandle handle() {
            return handle;
        }

        @DistributedLock(name = "job", key = "#id")
        public String run(String id) throws InterruptedException {
            handle = LockContext.currentHandle().orElseThrow();
            started.countDown();
            finish.await();
            return id;
        }
    }

    @Test
    void shutdownRefusesNewLockedMethodsWaitsForRunningOnesThenReleasesOnlyThisInstancesLocks() throws Exception {
        try (MemoryLockRegistry otherInstance =
                MemoryLockRegistry.builder().store(store).build()) {
            LockHandle othersLock = otherInstance.obtain("job:nightly").acquire();
            runner.run(context -> {
                Jobs jobs = context.getBean(Jobs.class);
                CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> call(jobs, "a"));
                assertThat(jobs.awaitStarted()).isTrue();
                CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
                awaitClosed(context.getBean(LockedMethodGate.class));

                assertThatThrownBy(() -> jobs.run("b")).isInstanceOf(LockingStoppedException.class);
                assertThat(store.size()).as("job:b was never taken").isEqualTo(2);
                assertThat(closing).isNotDone();
                assertThat(otherInstance.obtain("job:a").tryAcquire(Duration.ZERO))
                        .isEmpty();

                jobs.finish();
                assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("a");
                closing.get(10, TimeUnit.SECONDS);
                try (LockHandle taken = otherInstance
                        .obtain("job:a")
                        .tryAcquire(Duration.ofSeconds(5))
                        .orElseThrow()) {
                    assertThat(taken.isValid()).isTrue();
                }
                assertThat(othersLock.isValid()).as("another instance's lock").isTrue();
            });
            othersLock.close();
        }
    }

    /** A limited job: its permit is taken outside any lock, so the gate must sit outside the semaphore too. */
    public static class Exports {

        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);

        public boolean awaitStarted() throws InterruptedException {
            return started.await(10, TimeUnit.SECONDS);
        }

        public void finish() {
            finish.countDown();
        }

        @DistributedSemaphore(name = "exports", permits = 2, waitTime = "0s")
        public String export(String id) throws InterruptedException {
            started.countDown();
            finish.await();
            return id;
        }
    }

    @Test
    void shutdownRefusesNewSemaphoreMethodsAndWaitsForRunningOnes() throws Exception {
        runner.withBean(Exports.class).run(context -> {
            Exports exports = context.getBean(Exports.class);
            CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> {
                try {
                    return exports.export("a");
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(exports.awaitStarted()).isTrue();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            awaitClosed(context.getBean(LockedMethodGate.class));

            assertThatThrownBy(() -> exports.export("b"))
                    .isInstanceOf(LockingStoppedException.class)
                    .hasMessageContaining("Exports.export()");
            assertThat(closing).as("waits for the running method").isNotDone();

            exports.finish();
            assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("a");
            closing.get(10, TimeUnit.SECONDS);
        });
    }

    @Test
    void aMethodStillRunningAfterThePhaseTimeoutLosesItsLockWhenTheRegistryCloses() {
        runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=200ms")
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> call(jobs, "slow"));
                    assertThat(jobs.awaitStarted()).isTrue();
                    ((ConfigurableApplicationContext) context).close();
                    assertThat(running).isNotDone();
                    assertThat(jobs.handle().isValid()).isFalse();
                    try (MemoryLockRegistry next =
                            MemoryLockRegistry.builder().store(store).build()) {
                        assertThat(next.obtain("job:slow").tryAcquire(Duration.ofSeconds(5)))
                                .isPresent();
                    }
                    jobs.finish();
                    assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
                });
    }

    @Test
    void shutdownHandlingIsOffWhenDisabled() {
        runner.withPropertyValues("distributed-lock.shutdown.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(LockedMethodGate.class);
            assertThat(context).doesNotHaveBean(LockShutdown.class);
        });
    }

    private static String call(Jobs jobs, String id) {
        try {
            return jobs.run(id);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitClosed(LockedMethodGate gate) throws InterruptedException {
        for (int i = 0; i < 1000 && !gate.isClosed(); i++) {
            Thread.sleep(10);
        }
        assertThat(gate.isClosed()).isTrue();
    }
}
