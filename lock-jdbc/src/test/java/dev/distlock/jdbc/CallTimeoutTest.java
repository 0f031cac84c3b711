package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.spi.Deadline;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CallTimeoutTest {

    @Test
    void serverWaitIsTheTimeLeftInMilliseconds() {
        long millis = CallTimeout.until(Deadline.after(Duration.ofMillis(2500)), Duration.ofSeconds(60))
                .serverWaitMillis();
        assertThat(millis).isBetween(2400L, 2500L);
    }

    @Test
    void passedDeadlineStillGivesTheStatementItsMinimum() {
        CallTimeout passed = CallTimeout.until(Deadline.after(Duration.ZERO), Duration.ofSeconds(60));
        assertThat(passed.serverWaitMillis()).isEqualTo(CallTimeout.MIN_SERVER_WAIT.toMillis());
        assertThat(passed.querySeconds()).isEqualTo(1);
    }

    @Test
    void queryTimeoutIsTheServerWaitRoundedUpToWholeSeconds() {
        assertThat(CallTimeout.until(Deadline.after(Duration.ofMinutes(5)), Duration.ofMillis(1500))
                        .querySeconds())
                .isEqualTo(2);
        assertThat(CallTimeout.until(Deadline.never(), Duration.ofSeconds(60)).querySeconds())
                .isEqualTo(60);
    }

    @Test
    void networkTimeoutIsTheServerWaitPlusTheSlack() {
        CallTimeout timeout = CallTimeout.until(Deadline.never(), Duration.ofSeconds(4));
        assertThat(timeout.networkMillis()).isEqualTo(4000 + CallTimeout.SLACK.toMillis());
        assertThat(CallTimeout.MIN_SERVER_WAIT.plus(CallTimeout.SLACK)).isLessThanOrEqualTo(Duration.ofMillis(250));
    }
}
