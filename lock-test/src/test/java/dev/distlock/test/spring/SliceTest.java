package dev.distlock.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.test.ControlledLockRegistry;
import dev.distlock.test.LockControl;
import dev.distlock.test.LockEvent;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * As in a test slice: no {@code @EnableAutoConfiguration}, only what {@code @AutoConfigureTestLocks}
 * imports. The registry, the control and {@code @DistributedLock} are there.
 */
@SpringBootTest(classes = SliceTest.Config.class)
@AutoConfigureTestLocks
class SliceTest {

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        PaymentJob paymentJob(LockControl control, dev.distlock.core.LockRegistry registry) {
            return new PaymentJob(control, registry, new dev.distlock.core.fencing.MemoryFenceStore(), batch -> {});
        }
    }

    @Autowired
    LockControl control;

    @Autowired
    PaymentJob job;

    @Test
    void aLockedMethodUsesTheControlledRegistryWithoutTheApplicationsAutoConfiguration() {
        job.pay("b-9");

        assertThat(control.registry()).isInstanceOf(ControlledLockRegistry.class);
        assertThat(control.history().events("payments:b-9"))
                .extracting(LockEvent::kind)
                .containsExactly(LockEvent.Kind.ACQUIRED, LockEvent.Kind.RELEASED);
    }
}
