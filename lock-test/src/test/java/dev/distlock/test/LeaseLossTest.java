package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.fencing.FenceStore;
import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.MemoryFenceStore;
import dev.distlock.core.fencing.StaleTokenException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockControl#loseLease}: the hold turns invalid, its owner is told, its token goes stale. */
class LeaseLossTest {

    private final ControlledLockRegistry registry = new ControlledLockRegistry();
    private final LockControl control = registry.control();

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void aLostLeaseTurnsTheHandleInvalidAndRunsOnLost() throws Exception {
        LockHandle handle = registry.obtain("ledger").acquire();
        CountDownLatch told = new CountDownLatch(1);
        handle.onLost(told::countDown);

        FencingToken lost = control.loseLease("ledger");

        assertThat(lost).isEqualTo(handle.token());
        assertThat(handle.isValid()).isFalse();
        assertThat(told.await(30, TimeUnit.SECONDS)).as("onLost ran").isTrue();
        assertThat(control.history().events(LockEvent.Kind.LOST))
                .singleElement()
                .satisfies(event -> assertThat(event.token()).isEqualTo(lost));
        handle.close(); // after a loss: returns at once, frees nothing of anyone else's
    }

    @Test
    void theLostHoldsNextFencedWriteIsRefusedOnceTheNextHolderWrote() throws Exception {
        FenceStore fences = new MemoryFenceStore();
        LockHandle handle = registry.obtain("ledger").acquire();
        FencingClaim mine = FencingClaim.of(registry, handle);
        fences.admitWrite("ledger-row", mine);

        FencingToken theirs = control.takeOver("ledger", "worker@host-2");
        fences.admitWrite("ledger-row", new FencingClaim(registry.backend(), "ledger", theirs));

        assertThat(handle.isValid()).isFalse();
        assertThatThrownBy(() -> fences.admitWrite("ledger-row", mine)).isInstanceOf(StaleTokenException.class);
        handle.close();
    }

    @Test
    void afterALossTheKeyCanBeTakenAgainWithALargerToken() throws Exception {
        LockHandle first = registry.obtain("ledger").acquire();
        control.loseLease("ledger");
        first.close();

        try (LockHandle second = registry.obtain("ledger").acquire()) {
            assertThat(second.token()).isGreaterThan(first.token());
            assertThat(second.isValid()).isTrue();
        }
    }

    @Test
    void losingAKeyThisApplicationDoesNotHoldIsAnError() {
        control.holdElsewhere("ledger", "worker@host-2");

        assertThatThrownBy(() -> control.loseLease("ledger"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'ledger'");
    }
}
