package dev.distlock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockObserver.Outcome;
import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLock.OnFailure;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.LockContext;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LockObservationsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory")
            .withUserConfiguration(Beans.class);

    public static class Stock {

        private final ObservationRegistry observations;

        Stock(ObservationRegistry observations) {
            this.observations = observations;
        }

        /** Returns the observation current while the method runs under its lock. */
        @DistributedLock(name = "stock", key = "#sku")
        public Observation reserveLocked(String sku) {
            return observations.getCurrentObservation();
        }

        @DistributedLock(name = "stock", key = "#sku", onFailure = OnFailure.SKIP)
        public String reserveOrSkip(String sku) {
            return "reserved with token " + LockContext.currentToken();
        }
    }

    /** Collects every stopped observation's context. */
    static final class Recorded implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        <T> List<T> of(Class<T> type) {
            return stopped.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Recorded recorded() {
            return new Recorded();
        }

        @Bean
        ObservationRegistry observationRegistry(Recorded recorded) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(recorded);
            return registry;
        }

        @Bean
        Stock stock(ObservationRegistry registry) {
            return new Stock(registry);
        }
    }

    @Test
    void observationsAreOffWithoutAnObservationRegistryBean() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistributedLockAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues("distributed-lock.backend=memory")
                .run(context -> assertThat(context).doesNotHaveBean(LockObservations.class));
    }

    @Test
    void observationsAreOffWhenDisabled() {
        runner.withPropertyValues("distributed-lock.observations.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockObservations.class));
    }

    @Test
    void theWaitEndsWhenTheLockIsTakenAndTheMethodRunsInItsOwnObservation() {
        runner.run(context -> {
            Recorded recorded = context.getBean(Recorded.class);
            Observation inside = context.getBean(Stock.class).reserveLocked("sku-1");

            LockAcquisitionContext wait =
                    recorded.of(LockAcquisitionContext.class).get(0);
            assertThat(wait.getOutcome()).isEqualTo(Outcome.ACQUIRED);
            assertThat(wait.getKey()).isEqualTo("stock:sku-1");
            assertThat(wait.getLowCardinalityKeyValues())
                    .isEqualTo(KeyValues.of("backend", "memory", "lock.name", "stock", "outcome", "acquired"));
            assertThat(wait.getName()).isEqualTo("distlock.wait");
            assertThat(wait.getContextualName()).isEqualTo("lock wait stock");

            LockedMethodContext locked = recorded.of(LockedMethodContext.class).get(0);
            assertThat(locked.getName()).isEqualTo("distlock.locked");
            assertThat(locked.getLowCardinalityKeyValues())
                    .isEqualTo(KeyValues.of("backend", "memory", "lock.name", "stock"));
            assertThat(locked.getHighCardinalityKeyValues()).isEqualTo(KeyValues.of("lock.key", "stock:sku-1"));
            assertThat(inside.getContext()).isSameAs(locked);
            assertThat(recorded.stopped.indexOf(wait)).isLessThan(recorded.stopped.indexOf(locked));
        });
    }

    @Test
    void aWaitThatTimesOutIsObservedWithItsErrorAndNoMethodObservation() {
        runner.run(context -> {
            Recorded recorded = context.getBean(Recorded.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            Stock stock = context.getBean(Stock.class);
            try (LockHandle held = registry.obtain("stock:sku-1").acquire()) {
                Throwable thrown = CompletableFuture.supplyAsync(() -> {
                            try {
                                stock.reserveLocked("sku-1");
                                return null;
                            } catch (RuntimeException e) {
                                return e;
                            }
                        })
                        .get(10, TimeUnit.SECONDS);
                assertThat(thrown).isInstanceOf(LockNotAcquiredException.class);
                String skipped = CompletableFuture.supplyAsync(() -> stock.reserveOrSkip("sku-1"))
                        .get(10, TimeUnit.SECONDS);
                assertThat(skipped).isNull();
            }
            List<LockAcquisitionContext> waits = recorded.of(LockAcquisitionContext.class);
            assertThat(waits)
                    .extracting(LockAcquisitionContext::getOutcome)
                    .containsExactly(Outcome.TIMEOUT, Outcome.TIMEOUT);
            assertThat(waits.get(0).getError()).isInstanceOf(LockNotAcquiredException.class);
            assertThat(waits.get(1).getError()).isNull();
            assertThat(recorded.of(LockedMethodContext.class)).isEmpty();
        });
    }

    @Test
    void aConventionBeanReplacesTheDefault() {
        runner.withBean(
                        LockAcquisitionObservationConvention.class,
                        () -> new DefaultLockAcquisitionObservationConvention() {
                            @Override
                            public String getName() {
                                return "orders.lock.wait";
                            }
                        })
                .run(context -> {
                    context.getBean(Stock.class).reserveLocked("sku-1");
                    assertThat(context.getBean(Recorded.class).of(LockAcquisitionContext.class))
                            .extracting(Observation.Context::getName)
                            .containsExactly("orders.lock.wait");
                });
    }
}
