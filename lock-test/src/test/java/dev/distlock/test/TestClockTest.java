package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockControl#advance}: leases, minimum holds and renewals follow the test clock, not sleeps. */
class TestClockTest {

    private final TestLockServer server = new TestLockServer();
    private final ControlledLockRegistry registry =
            ControlledLockRegistry.builder().server(server).build();
    /** Another instance over the same server. */
    private final LockRegistry other =
            ControlledLockRegistry.builder().server(server).build();

    private final LockControl control = registry.control();

    @AfterEach
    void close() {
        registry.close();
        other.close();
    }

    @Test
    void aFixedLeaseEndsWhenTheClockPassesIt() throws Exception {
        LockHandle handle = registry.obtain("batch")
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        CountDownLatch told = new CountDownLatch(1);
        handle.onLost(told::countDown);

        control.advance(Duration.ofSeconds(4));
        assertThat(handle.isValid()).isTrue();
        assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).isEmpty();

        control.advance(Duration.ofSeconds(2));
        assertThat(handle.isValid()).isFalse();
        assertThat(told.await(30, TimeUnit.SECONDS)).as("onLost ran").isTrue();
        assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
        handle.close();
    }

    @Test
    void anExtendedFixedLeaseLastsFromTheExtension() throws Exception {
        LockHandle handle = registry.obtain("batch")
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        control.advance(Duration.ofSeconds(4));
        assertThat(handle.extend(Duration.ofSeconds(5))).isTrue();

        control.advance(Duration.ofSeconds(4));

        assertThat(handle.isValid()).isTrue();
        handle.close();
    }

    @Test
    void theWatchdogKeepsALeaseAcrossAnyTimeTheClockMoves() throws Exception {
        try (LockHandle handle = registry.obtain("batch").acquire()) {
            control.advance(Duration.ofMinutes(10));

            assertThat(handle.isValid()).isTrue();
            assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).isEmpty();
            // 30 s lease, renewed every 10 s
            assertThat(control.history().events(LockEvent.Kind.RENEWED)).hasSizeGreaterThanOrEqualTo(59);
        }
    }

    @Test
    void aWatchdogLeaseIsLostWhenTheBackendIsUnreachableLongerThanTheLease() throws Exception {
        LockHandle handle = registry.obtain("batch").acquire();
        CountDownLatch told = new CountDownLatch(1);
        handle.onLost(told::countDown);
        control.unreachableFor(Duration.ofSeconds(40));

        control.advance(Duration.ofSeconds(60));

        assertThat(handle.isValid()).isFalse();
        assertThat(told.await(30, TimeUnit.SECONDS)).as("onLost ran").isTrue();
        assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
        handle.close();
    }

    @Test
    void aWatchdogLeaseSurvivesAnOutageShorterThanItsLease() throws Exception {
        try (LockHandle handle = registry.obtain("batch").acquire()) {
            control.unreachableFor(Duration.ofSeconds(15));

            control.advance(Duration.ofSeconds(60));

            assertThat(handle.isValid()).isTrue();
        }
    }

    @Test
    void aMinimumHoldKeepsTheKeyFromOtherInstancesUntilTheClockPassesIt() throws Exception {
        LockHandle handle = registry.obtain("batch").acquire();
        handle.holdAtLeast(Duration.ofMinutes(5));
        handle.close();

        assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).isEmpty();
        control.advance(Duration.ofMinutes(5).plusSeconds(1));

        assertThat(other.obtain("batch").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
    }
}
