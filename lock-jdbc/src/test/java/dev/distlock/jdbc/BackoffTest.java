package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(5), Duration.ofMillis(200));

    @Test
    void pausesDoubleUpToTheCapAndStayInTheUpperHalf() {
        for (int attempt = 1; attempt < 100; attempt++) {
            long ceiling = Math.min(Duration.ofMillis(5).toNanos() << Math.min(attempt - 1, 30), 200_000_000L);
            long pause = backoff.pauseNanos(attempt);
            assertThat(pause).isBetween(ceiling / 2, ceiling);
        }
    }

    @Test
    void waitersThatStartTogetherPauseForDifferentTimes() {
        Set<Long> pauses = new HashSet<>();
        for (int waiter = 0; waiter < 20; waiter++) {
            pauses.add(backoff.pauseNanos(8));
        }
        assertThat(pauses).hasSizeGreaterThan(10);
    }

    @Test
    void capBelowTheInitialPauseIsRejected() {
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(10), Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
