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
    void networkTimeoutGivesTheServersAnswerAllOfTheOverrunAndNoMore() {
        CallTimeout capped = CallTimeout.until(Deadline.never(), Duration.ofSeconds(4));
        assertThat(capped.networkMillis()).isEqualTo(4000 + CallTimeout.OVERRUN.toMillis());
        // A statement that waits out a call's time: the database's answer to its own timeout may come up to the
        // contract's overrun after the deadline (on a busy machine it often takes more than 150 ms), never later.
        CallTimeout waiting = CallTimeout.until(Deadline.after(Duration.ofSeconds(2)), Duration.ofSeconds(30));
        assertThat(waiting.networkMillis()).isBetween(2000 + 250 - 20, 2000 + 250);
        // A zero wait: the shortest server wait and the slack, within the overrun.
        CallTimeout zero = CallTimeout.until(Deadline.after(Duration.ZERO), Duration.ofSeconds(30));
        assertThat(zero.networkMillis()).isEqualTo(250);
        assertThat(CallTimeout.MIN_SERVER_WAIT.plus(CallTimeout.SLACK)).isLessThanOrEqualTo(CallTimeout.OVERRUN);
    }

    @Test
    void aQueryTimeoutPastTheNetworkTimeoutNeverFiresFirst() {
        for (long left = 0; left <= 5_000; left += 10) {
            CallTimeout timeout = CallTimeout.until(Deadline.after(Duration.ofMillis(left)), Duration.ofSeconds(60));
            assertThat(timeout.querySecondsPastNetwork() * 1000L)
                    .as("%d ms left", left)
                    .isGreaterThan(timeout.networkMillis());
        }
    }
}
