package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockHistory} and {@link LockControl#assertHeld}: what was locked, in what order, by whom. */
class HistoryTest {

    private final ControlledLockRegistry registry =
            ControlledLockRegistry.builder().keyPrefix("app:").build();
    private final LockControl control = registry.control();

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void recordsAcquisitionsInOrderWithRisingTokensAndTheirThreads() throws Exception {
        try (LockHandle a = registry.obtain("a").acquire()) {
            try (LockHandle again = registry.obtain("a").acquire()) { // reentrant: the same hold
                assertThat(again.token()).isEqualTo(a.token());
            }
        }
        CompletableFuture.runAsync(() -> acquireAndRelease("b"), runnable -> {
                    Thread thread = new Thread(runnable, "worker-1");
                    thread.start();
                })
                .get(30, TimeUnit.SECONDS);
        acquireAndRelease("a");

        assertThat(control.history().acquiredKeys()).containsExactly("a", "b", "a");
        List<FencingToken> tokens = control.history().tokens("a");
        assertThat(tokens).hasSize(2);
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
        assertThat(control.history().events("b"))
                .extracting(LockEvent::kind, LockEvent::thread)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(LockEvent.Kind.ACQUIRED, "worker-1"),
                        org.assertj.core.groups.Tuple.tuple(LockEvent.Kind.RELEASED, "worker-1"));
    }

    @Test
    void assertHeldPassesInsideTheLockedSection() throws Exception {
        try (LockHandle handle = registry.obtain("a").acquire()) {
            control.assertHeld("a");
        }
        assertThat(control.history().unheldCalls()).isEmpty();
    }

    @Test
    void assertHeldFailsAndRecordsACallMadeWithoutTheLock() {
        assertThatThrownBy(() -> control.assertHeld("a"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("'a'");
        assertThat(control.history().unheldCalls()).singleElement().satisfies(event -> {
            assertThat(event.key()).isEqualTo("a");
            assertThat(event.thread()).isEqualTo(Thread.currentThread().getName());
        });
    }

    @Test
    void assertHeldFailsAfterTheLeaseWasLost() throws Exception {
        try (LockHandle handle = registry.obtain("a").acquire()) {
            control.loseLease("a");

            assertThatThrownBy(() -> control.assertHeld("a")).isInstanceOf(AssertionError.class);
        }
    }

    @Test
    void assertHeldFailsOnAThreadThatDoesNotHoldTheKey() throws Exception {
        try (LockHandle handle = registry.obtain("a").acquire()) {
            CompletableFuture<Void> elsewhere = CompletableFuture.runAsync(() -> control.assertHeld("a"));
            assertThatThrownBy(() -> elsewhere.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(AssertionError.class);
        }
    }

    @Test
    void awaitReturnsWhenAnotherThreadTakesTheLock() throws Exception {
        CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> acquireAndRelease("c"));

        LockEvent acquired = control.history().await(LockEvent.Kind.ACQUIRED, "c", Duration.ofSeconds(30));

        assertThat(acquired.thread()).isNotEqualTo(Thread.currentThread().getName());
        worker.get(30, TimeUnit.SECONDS);
    }

    @Test
    void awaitFailsWithTheHistoryWhenNothingCame() {
        assertThatThrownBy(() -> control.history().await(LockEvent.Kind.ACQUIRED, "never", Duration.ofMillis(1)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("'never'");
    }

    private void acquireAndRelease(String key) {
        try {
            registry.obtain(key)
                    .tryAcquire(Duration.ofSeconds(30))
                    .orElseThrow()
                    .close();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
