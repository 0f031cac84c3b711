package dev.distlock.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockNotAcquiredException;
import dev.distlock.core.LockRegistry;
import dev.distlock.test.ControlledLockRegistry;
import dev.distlock.test.LockControl;
import dev.distlock.test.LockEvent;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/**
 * {@code @AutoConfigureTestLocks} on a {@code @SpringBootTest} whose configuration names a backend
 * that is not even on the classpath (redis): the controlled registry takes its place, the starter's
 * {@code @DistributedLock} uses it, and the control is reset after each test.
 */
@SpringBootTest(
        classes = AutoConfigureTestLocksTest.Application.class,
        properties = {"distributed-lock.backend=redis", "distributed-lock.key-prefix=shop:"})
@AutoConfigureTestLocks
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AutoConfigureTestLocksTest {

    @SpringBootApplication
    static class Application {
        @Bean
        PaymentJob paymentJob(LockControl control, dev.distlock.core.LockRegistry registry) {
            return new PaymentJob(control, registry, new dev.distlock.core.fencing.MemoryFenceStore(), batch -> {});
        }
    }

    @Autowired
    LockRegistry registry;

    @Autowired
    LockControl control;

    @Autowired
    PaymentJob job;

    @Test
    @Order(1)
    void theApplicationsRegistryIsTheControlledOneWithTheConfiguredPrefix() {
        assertThat(registry).isInstanceOf(ControlledLockRegistry.class);
        assertThat(control.registry()).isSameAs(registry);
        assertThat(((ControlledLockRegistry) registry).options().keyPrefix()).isEqualTo("shop:");
    }

    @Test
    @Order(2)
    void aLockedMethodRunsUnderItsLockAndTheHistoryShowsIt() {
        FencingToken token = job.pay("b-1");

        assertThat(control.history().events("payments:b-1"))
                .extracting(LockEvent::kind)
                .containsExactly(LockEvent.Kind.ACQUIRED, LockEvent.Kind.RELEASED);
        assertThat(control.history().tokens("payments:b-1")).containsExactly(token);
        assertThat(control.history().unheldCalls()).isEmpty();
    }

    @Test
    @Order(3)
    void aKeyHeldByAnotherInstanceMakesTheLockedMethodFail() {
        control.holdElsewhere("payments:b-2", "payments@host-2");

        assertThatThrownBy(() -> job.pay("b-2"))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("payments@host-2");
    }

    @Test
    @Order(4)
    void eachTestStartsFromAResetControl() {
        // The test before left the key held by another instance.
        assertThat(control.history().events()).isEmpty();
        assertThat(job.pay("b-2")).isNotNull();
    }

    @Test
    @Order(5)
    void workDoneWithoutTheLockIsCaught() {
        assertThatThrownBy(() -> job.payWithoutLock("b-3")).isInstanceOf(AssertionError.class);
        assertThat(control.history().unheldCalls()).hasSize(1);
    }
}
