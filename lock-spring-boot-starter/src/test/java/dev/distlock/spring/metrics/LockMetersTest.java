package dev.distlock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LockMetersTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    @Configuration(proxyBeanMethods = false)
    static class Meters {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void metersAreOffWithoutAMeterRegistryBean() {
        runner.run(context -> assertThat(context).doesNotHaveBean("distributedLockMeters"));
    }

    @Test
    void metersAreOffWithoutMicrometerOnTheClasspath() {
        runner.withUserConfiguration(Meters.class)
                .withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("distributedLockMeters");
                });
    }

    @Test
    void metersAreOffWhenDisabled() {
        runner.withUserConfiguration(Meters.class)
                .withPropertyValues("distributed-lock.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("distributedLockMeters"));
    }

    @Test
    void acquisitionsAreTimedByOutcome() {
        runner.withUserConfiguration(Meters.class).run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            try (LockHandle held = registry.obtain("stock:sku-1").acquire()) {
                Boolean acquiredElsewhere = CompletableFuture.supplyAsync(() -> tryAcquire(registry, "stock:sku-1"))
                        .get(10, TimeUnit.SECONDS);
                assertThat(acquiredElsewhere).isFalse();
            }
            assertThat(acquisitions(meters, "acquired")).isEqualTo(1);
            assertThat(acquisitions(meters, "timeout")).isEqualTo(1);
            assertThat(meters.get("distlock.acquisition")
                            .tag("outcome", "timeout")
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS))
                    .isGreaterThanOrEqualTo(50);
        });
    }

    @Test
    void heldLocksAreALongTaskTimer() {
        runner.withUserConfiguration(Meters.class).run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            try (LockHandle first = registry.obtain("stock:sku-1").acquire();
                    LockHandle second = registry.obtain("stock:sku-2").acquire();
                    LockHandle reentrant = registry.obtain("stock:sku-2").acquire()) {
                assertThat(meters.get("distlock.held")
                                .tags("backend", "memory", "lock.name", "stock")
                                .longTaskTimer()
                                .activeTasks())
                        .isEqualTo(2);
            }
            assertThat(meters.get("distlock.held").longTaskTimer().activeTasks())
                    .isZero();
        });
    }

    @Test
    void readersSharingATokenAreEachCountedAsHeldUntilEachReleases() {
        runner.withUserConfiguration(Meters.class).run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // Two handle-owned reads of one write epoch: same key, same token, same owner name.
            LockHandle first = registry.readWriteLock("stock:sku-3")
                    .readLock()
                    .acquireAsync(Duration.ofSeconds(5))
                    .join()
                    .orElseThrow();
            LockHandle second = registry.readWriteLock("stock:sku-3")
                    .readLock()
                    .acquireAsync(Duration.ofSeconds(5))
                    .join()
                    .orElseThrow();
            assertThat(second.token()).isEqualTo(first.token());
            assertThat(meters.get("distlock.held").longTaskTimer().activeTasks())
                    .isEqualTo(2);
            first.close();
            assertThat(meters.get("distlock.held").longTaskTimer().activeTasks())
                    .isEqualTo(1);
            second.close();
            assertThat(meters.get("distlock.held").longTaskTimer().activeTasks())
                    .isZero();
        });
    }

    @Test
    void aLostLeaseIsCounted() {
        runner.withUserConfiguration(Meters.class)
                .withPropertyValues("distributed-lock.lease-time=300ms")
                .run(context -> {
                    MemoryLockRegistry registry = context.getBean(MemoryLockRegistry.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    try (LockHandle handle = registry.obtain("report:daily").acquire()) {
                        CountDownLatch lost = new CountDownLatch(1);
                        handle.onLost(lost::countDown);
                        registry.store().expire("report:daily");
                        assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
                        assertThat(meters.get("distlock.lease.losses")
                                        .tags("backend", "memory", "lock.name", "report")
                                        .counter()
                                        .count())
                                .isEqualTo(1);
                    }
                    assertThat(meters.get("distlock.held").longTaskTimer().activeTasks())
                            .isZero();
                });
    }

    @Test
    void backendErrorsAreCountedWithoutTheKeyPrefix() {
        runner.withUserConfiguration(Meters.class, FailingRegistryConfig.class)
                .withPropertyValues("distributed-lock.startup-check.mode=off")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThatThrownBy(() -> registry.obtain("stock:sku-1").tryAcquire(Duration.ZERO))
                            .isInstanceOf(LockBackendException.class);
                    assertThat(meters.get("distlock.backend.errors")
                                    .tags(
                                            "backend",
                                            "failing",
                                            "lock.name",
                                            "stock",
                                            "exception",
                                            "LockBackendException")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(acquisitions(meters, "error")).isEqualTo(1);
                });
    }

    @Test
    void lockNamesBeyondTheLimitAreTaggedOther() {
        runner.withUserConfiguration(Meters.class)
                .withPropertyValues("distributed-lock.metrics.max-lock-names=2")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    for (String key : new String[] {"a:1", "b:2", "order-17", "order-18"}) {
                        registry.obtain(key).acquire().close();
                    }
                    assertThat(meters.find("distlock.acquisition").timers())
                            .extracting(timer -> timer.getId().getTag("lock.name"))
                            .containsExactlyInAnyOrder("a", "b", LockNames.OTHER);
                    assertThat(meters.get("distlock.acquisition")
                                    .tag("lock.name", LockNames.OTHER)
                                    .timer()
                                    .count())
                            .isEqualTo(2);
                });
    }

    private static boolean tryAcquire(LockRegistry registry, String key) {
        try {
            return registry.obtain(key).tryAcquire(Duration.ofMillis(50)).isPresent();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long acquisitions(MeterRegistry meters, String outcome) {
        return meters.get("distlock.acquisition")
                .tags("outcome", outcome)
                .timer()
                .count();
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingRegistryConfig {

        @Bean
        LockRegistry failingRegistry() {
            return new FailingLockRegistry("app:");
        }
    }
}
