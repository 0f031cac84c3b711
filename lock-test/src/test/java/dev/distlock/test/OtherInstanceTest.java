package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockControl#holdElsewhere}: a key held by another instance, until released or for a time. */
class OtherInstanceTest {

    private final ControlledLockRegistry registry = new ControlledLockRegistry();
    private final LockControl control = registry.control();

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void aKeyHeldElsewhereIsBusyAndNamesItsHolder() throws Exception {
        FencingToken theirs = control.holdElsewhere("payments", "billing@host-2");

        assertThat(registry.obtain("payments").tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(registry.holderOf("payments")).hasValueSatisfying(holder -> {
            assertThat(holder.holder()).isEqualTo("billing@host-2");
            assertThat(holder.token()).isEqualTo(theirs);
        });
    }

    @Test
    void afterTheOtherInstanceReleasesTheKeyIsTakenWithALargerToken() throws Exception {
        FencingToken theirs = control.holdElsewhere("payments", "billing@host-2");
        assertThat(control.releaseElsewhere("payments")).isTrue();

        try (LockHandle mine =
                registry.obtain("payments").tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(mine.token()).isGreaterThan(theirs);
        }
    }

    @Test
    void aWaiterGetsTheKeyWhenTheOtherInstanceReleasesIt() throws Exception {
        control.holdElsewhere("payments", "billing@host-2");
        CompletableFuture<Optional<LockHandle>> waiting =
                registry.obtain("payments").acquireAsync(Duration.ofMinutes(5));
        control.releaseElsewhere("payments");

        Optional<LockHandle> handle = waiting.get(30, TimeUnit.SECONDS);
        assertThat(handle).hasValueSatisfying(held -> assertThat(held.isValid()).isTrue());
        handle.get().close();
    }

    @Test
    void aTimedHoldElsewhereEndsWhenTheTestClockPassesIt() throws Exception {
        control.holdElsewhere("payments", "billing@host-2", Duration.ofSeconds(10));

        control.advance(Duration.ofSeconds(9));
        assertThat(registry.obtain("payments").tryAcquire(Duration.ZERO)).isEmpty();

        control.advance(Duration.ofSeconds(2));
        assertThat(registry.obtain("payments").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
        assertThat(control.history().events(LockEvent.Kind.FREED_ELSEWHERE)).hasSize(1);
    }

    @Test
    void anotherInstanceCannotTakeAKeyThisApplicationHolds() throws Exception {
        try (LockHandle mine = registry.obtain("payments").acquire()) {
            assertThatThrownBy(() -> control.holdElsewhere("payments", "billing@host-2"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("payments")
                    .hasMessageContaining("loseLease");
            assertThat(mine.isValid()).isTrue();
        }
    }

    @Test
    void resetEndsOtherInstancesHoldsAndEmptiesTheHistory() throws Exception {
        control.holdElsewhere("payments", "billing@host-2");
        control.unreachableForCalls(5);

        control.reset();

        assertThat(control.history().events()).isEmpty();
        assertThat(registry.obtain("payments").tryAcquire(Duration.ZERO)).hasValueSatisfying(LockHandle::close);
    }
}
