package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An unreachable or slow backend: calls fail and wait as they do against a real server that is down. */
class OutageTest {

    private final ControlledLockRegistry registry = new ControlledLockRegistry();
    private final LockControl control = registry.control();

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void aZeroWaitAcquisitionDuringAnOutageFailsAtOnceWithLockBackendException() {
        control.unreachableForCalls(1);

        assertThatThrownBy(() -> registry.obtain("report").tryAcquire(Duration.ZERO))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("'report'")
                .hasMessageContaining("connection refused");
    }

    @Test
    void anAcquisitionRidesOutFailingCallsWhileItsWaitLasts() throws Exception {
        control.unreachableForCalls(3);

        try (LockHandle handle =
                registry.obtain("report").tryAcquire(Duration.ofMinutes(1)).orElseThrow()) {
            assertThat(handle.isValid()).isTrue();
        }
        assertThat(control.history().events(LockEvent.Kind.BACKEND_FAILED)).hasSize(3);
    }

    @Test
    void anOutageForATimeEndsWhenTheTestClockPassesIt() throws Exception {
        control.unreachableFor(Duration.ofSeconds(30));
        assertThatThrownBy(() -> registry.obtain("report").tryAcquire(Duration.ZERO))
                .isInstanceOf(LockBackendException.class);

        control.advance(Duration.ofSeconds(31));

        assertThat(registry.obtain("report").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
    }

    @Test
    void theStartUpCheckFailsDuringAnOutage() {
        control.unreachableForCalls(1);

        assertThatThrownBy(() -> registry.verify(Duration.ofSeconds(1))).isInstanceOf(LockBackendException.class);
        registry.verify(Duration.ofSeconds(1));
    }

    @Test
    void aSlowBackendHoldsEachCallUpByItsDelay() throws Exception {
        control.slowForCalls(1, Duration.ofMillis(200));

        long start = System.nanoTime();
        registry.obtain("report").tryAcquire(Duration.ZERO).orElseThrow().close();

        // A lower bound only: the call cannot return before the delay it was given.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void recoveryEndsAnOutage() throws Exception {
        control.unreachableFor(Duration.ofHours(1));
        control.backendRecovered();

        assertThat(registry.obtain("report").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
    }
}
