package dev.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.RegistryOptions;
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
    void networkTimeoutGivesTheServersAnswerAllOfTheBudgetAndNoMore() {
        Duration budget = Duration.ofMillis(600);
        CallTimeout capped =
                CallTimeout.until(Deadline.never(), Duration.ofSeconds(4)).withAnswerBudget(budget);
        assertThat(capped.networkMillis()).isEqualTo(4000 + 600);
        // A statement that waits out a call's time: the database's answer to its own timeout may come up to the
        // answer budget after the deadline (on a busy machine it often takes more than 150 ms), never later.
        CallTimeout waiting = CallTimeout.until(Deadline.after(Duration.ofSeconds(2)), Duration.ofSeconds(30))
                .withAnswerBudget(budget);
        assertThat(waiting.networkMillis()).isBetween(2000 + 600 - 20, 2000 + 600);
        // A zero wait: the whole budget for the database's answer (a 250 ms socket timeout failed MariaDB's lease
        // tests during a disk stall), and as long for a pooled connection.
        CallTimeout zero = CallTimeout.until(Deadline.after(Duration.ZERO), Duration.ofSeconds(30))
                .withAnswerBudget(budget);
        assertThat(zero.networkMillis()).isEqualTo(600);
        assertThat(zero.connectionWaitMillis()).isEqualTo(600);
        assertThat(CallTimeout.until(Deadline.after(Duration.ZERO), Duration.ofSeconds(30))
                        .networkMillis())
                .as("calls of no registry get the default budget")
                .isEqualTo(RegistryOptions.DEFAULT_ANSWER_BUDGET.toMillis());
    }

    @Test
    void aQueryTimeoutPastTheNetworkTimeoutComesAtLeastASecondAfterIt() {
        for (long left = 0; left <= 5_000; left += 10) {
            CallTimeout timeout = CallTimeout.until(Deadline.after(Duration.ofMillis(left)), Duration.ofSeconds(60));
            assertThat(timeout.querySecondsPastNetwork() * 1000L - timeout.networkMillis())
                    .as("%d ms left: the query timeout's lead over the network timeout", left)
                    .isGreaterThanOrEqualTo(1000);
        }
    }
}
