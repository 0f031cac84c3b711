package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CallTimeoutTest {

    @Test
    void queryTimeoutIsTheTimeLeftRoundedUpToWholeSeconds() {
        assertThat(CallTimeout.until(Deadline.after(Duration.ofMillis(2500)), Duration.ofSeconds(60))
                        .querySeconds())
                .isEqualTo(3);
        assertThat(CallTimeout.of(Duration.ofSeconds(2)).querySeconds()).isBetween(1, 2);
    }

    @Test
    void passedDeadlineStillGivesTheStatementOneSecond() {
        assertThat(CallTimeout.until(Deadline.after(Duration.ZERO), Duration.ofSeconds(60))
                        .querySeconds())
                .isEqualTo(1);
        assertThat(CallTimeout.of(Duration.ofMillis(10)).querySeconds()).isEqualTo(1);
    }

    @Test
    void capBoundsTheStatementOfALongOrEndlessWait() {
        assertThat(CallTimeout.until(Deadline.never(), Duration.ofSeconds(60)).querySeconds())
                .isEqualTo(60);
        assertThat(CallTimeout.until(Deadline.after(Duration.ofMinutes(5)), Duration.ofMillis(1500))
                        .querySeconds())
                .isEqualTo(2);
    }

    @Test
    void networkTimeoutLeavesTheCancelItsGraceBeyondTheQueryTimeout() {
        CallTimeout timeout = CallTimeout.until(Deadline.never(), Duration.ofSeconds(4));
        assertThat(timeout.networkMillis()).isEqualTo(4000 + CallTimeout.NETWORK_GRACE.toMillis());
    }
}
