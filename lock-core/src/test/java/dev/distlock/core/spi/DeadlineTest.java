package dev.distlock.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a deadline reports, as its Javadoc says. */
class DeadlineTest {

    private static final Duration HUNDRED_YEARS = Duration.ofDays(365L * 100);

    @Test
    void aDeadlineThatNeverComesHasAHundredYearsLeftAndNeverPasses() {
        Deadline never = Deadline.never();

        assertThat(never.remaining()).isEqualTo(HUNDRED_YEARS);
        assertThat(never.remainingMillis()).isEqualTo(HUNDRED_YEARS.toMillis());
        assertThat(never.hasPassed()).isFalse();
        assertThat(Deadline.after(HUNDRED_YEARS.plusDays(1)).isForever()).isTrue();
    }

    @Test
    void aPassedDeadlineHasNothingLeftAndAPositiveRemainderRoundsUpToAWholeMillisecond() {
        assertThat(Deadline.after(Duration.ZERO).remainingNanos()).isZero();
        assertThat(Deadline.after(Duration.ZERO).hasPassed()).isTrue();
        assertThat(Deadline.after(Duration.ofMinutes(1)).remainingMillis()).isPositive();
    }
}
