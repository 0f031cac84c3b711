package dev.distlock.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.test.LockControl;
import dev.distlock.test.LockEvent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/**
 * The lock backend is down when the application starts ({@link LockControlCustomizer}): with the
 * start-up check in warn mode the application starts, the starter's check met the outage, locked
 * calls fail until the backend is back, then work.
 */
@SpringBootTest(
        classes = BackendDownAtStartTest.Application.class,
        properties = "distributed-lock.startup-check.mode=warn")
@AutoConfigureTestLocks
class BackendDownAtStartTest {

    @SpringBootApplication
    static class Application {
        @Bean
        LockControlCustomizer backendDown() {
            return control -> control.unreachableFor(Duration.ofMinutes(10));
        }

        @Bean
        PaymentJob paymentJob(LockControl control, LockRegistry registry) {
            return new PaymentJob(control, registry, new MemoryFenceStore(), batch -> {});
        }
    }

    @Autowired
    LockControl locks;

    @Autowired
    PaymentJob job;

    @Test
    void theApplicationStartsLockedCallsFailUntilTheBackendIsBack() {
        assertThat(locks.history().events(LockEvent.Kind.BACKEND_FAILED))
                .as("the start-up check met the outage")
                .isNotEmpty();
        assertThatThrownBy(() -> job.pay("b-1")).isInstanceOf(LockBackendException.class);

        locks.advance(Duration.ofMinutes(10));

        assertThat(job.pay("b-1")).isNotNull();
    }
}
