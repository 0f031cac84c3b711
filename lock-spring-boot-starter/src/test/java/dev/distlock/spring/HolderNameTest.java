package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The holder description stored with each lock names the application. */
class HolderNameTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=memory");

    @Test
    void holderIsNamedAfterTheApplication() {
        runner.withPropertyValues("spring.application.name=orders").run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            try (LockHandle held = registry.obtain("k").acquire()) {
                assertThat(registry.holderOf("k").orElseThrow().holder()).startsWith("orders@");
            }
        });
    }

    @Test
    void holderNamePropertyWinsOverTheApplicationName() {
        runner.withPropertyValues("spring.application.name=orders", "distributed-lock.holder-name=orders-eu")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    try (LockHandle held = registry.obtain("k").acquire()) {
                        assertThat(registry.holderOf("k").orElseThrow().holder())
                                .startsWith("orders-eu@");
                    }
                });
    }
}
