package dev.distlock.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InterruptsTest {

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void deferredRunsTheCallAgainAfterAnInterruptAndSetsTheFlagAfterwards() {
        AtomicInteger runs = new AtomicInteger();
        int result = Interrupts.deferred(() -> {
            if (runs.incrementAndGet() == 1) {
                throw new InterruptedException("first run");
            }
            return 7;
        });
        assertThat(result).isEqualTo(7);
        assertThat(runs).hasValue(2);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void deferredLeavesAClearFlagClear() {
        assertThat(Interrupts.deferred(() -> "done")).isEqualTo("done");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void deferredLetsAFlagSetBeforeEndTheFirstRunAndKeepsIt() {
        AtomicInteger runs = new AtomicInteger();
        Thread.currentThread().interrupt();
        String result = Interrupts.deferred(() -> {
            runs.incrementAndGet();
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted before the call");
            }
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(runs).hasValue(2);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void clearedRunsTheCallWithTheFlagClearedAndSetsItAgain() {
        AtomicInteger runs = new AtomicInteger();
        Thread.currentThread().interrupt();
        boolean flagDuringCall = Interrupts.cleared(() -> {
            runs.incrementAndGet();
            return Thread.currentThread().isInterrupted();
        });
        assertThat(flagDuringCall).isFalse();
        assertThat(runs).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void clearedLeavesAClearFlagClear() {
        assertThat(Interrupts.cleared(() -> 1)).isEqualTo(1);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }
}
