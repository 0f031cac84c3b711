package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.metrics.FailingLockRegistry;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Reads the indicator through reflection, as its interface depends on the Boot line the test runs on. */
class LockHealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    @Test
    void healthIsUpWithHoldsAndLeaseLossesAndALostLeaseDoesNotMakeItDown() {
        runner.withPropertyValues("distributed-lock.lease-time=300ms").run(context -> {
            MemoryLockRegistry registry = context.getBean(MemoryLockRegistry.class);
            try (LockHandle kept = registry.obtain("stock:sku-1").acquire();
                    LockHandle lost = registry.obtain("report:daily").acquire()) {
                CountDownLatch lossSeen = new CountDownLatch(1);
                lost.onLost(lossSeen::countDown);
                registry.store().expire("report:daily");
                assertThat(lossSeen.await(10, TimeUnit.SECONDS)).isTrue();

                Object health = health(context);
                assertThat(status(health)).isEqualTo("UP");
                // The lost hold is listed until its owner releases it.
                assertThat(details(health))
                        .containsEntry("backend", "memory")
                        .containsEntry("holds", 2)
                        .containsEntry("leaseLosses", 1L);
            }
        });
    }

    @Test
    void anUnreachableBackendIsDownWithTheReason() {
        runner.withPropertyValues("distributed-lock.startup-check.mode=off")
                .withBean("lockRegistry", LockRegistry.class, () -> new FailingLockRegistry(""))
                .run(context -> {
                    Object health = health(context);
                    assertThat(status(health)).isEqualTo("DOWN");
                    assertThat((String) details(health).get("error")).contains("nowhere:1", "connection refused");
                });
    }

    @Test
    void severalRegistriesAreReportedByBeanName() {
        runner.withBean("ordersRegistry", LockRegistry.class, MemoryLockRegistry::new)
                .withBean("reportsRegistry", LockRegistry.class, MemoryLockRegistry::new)
                .run(context ->
                        assertThat(details(health(context))).containsOnlyKeys("ordersRegistry", "reportsRegistry"));
    }

    @Test
    void healthIsOffWhenDisabledOrWithoutTheHealthApi() {
        runner.withPropertyValues("distributed-lock.health.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("distributedLockHealthIndicator"));
        runner.withClassLoader(new FilteredClassLoader(
                        LockHealthIndicatorFactoryBean.BOOT_4, LockHealthIndicatorFactoryBean.BOOT_3))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("distributedLockHealthIndicator");
                });
    }

    @Test
    void theIndicatorIsTheHealthIndicatorTypeOfTheBootLineInUse() throws Exception {
        Class<?> indicatorType = Class.forName(
                LockHealthIndicatorFactoryBean.apiPackage(getClass().getClassLoader()) + ".HealthIndicator");
        runner.run(context ->
                assertThat(context.getBeansOfType(indicatorType)).containsKey("distributedLockHealthIndicator"));
    }

    private static Object health(ApplicationContext context) throws Exception {
        Object indicator = context.getBean("distributedLockHealthIndicator");
        Method health = indicator.getClass().getMethod("health");
        return health.invoke(indicator);
    }

    private static String status(Object health) throws Exception {
        Object status = health.getClass().getMethod("getStatus").invoke(health);
        return (String) status.getClass().getMethod("getCode").invoke(status);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Object health) throws Exception {
        return (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health);
    }
}
