package dev.distlock.contract;

import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Measurement;
import java.time.Duration;
import org.junit.jupiter.api.TestInfo;

/**
 * Rule 8's timing checks. A bound is the promise plus the backend's {@link ContractSupport#timingSlack() slack}, and
 * the slack beyond the promised overrun is the margin a stall must exceed for an overrun to be inconclusive.
 */
final class WaitBounds {

    /** By rule 8, no call outlives its wait time by more than this. */
    static final Duration PROMISED_OVERRUN = Duration.ofMillis(250);

    private WaitBounds() {}

    /** Runs {@code measurement} through a {@link TimingBound} named after the backend's test class and the test. */
    static int check(ContractGroup<?> group, TestInfo test, Measurement measurement) throws Exception {
        Duration margin = group.timingSlack().minus(PROMISED_OVERRUN);
        return TimingBound.of(name(group, test), margin.isNegative() ? Duration.ZERO : margin)
                .check(measurement);
    }

    /** A timing check's name, made of the backend's test class and the test method. */
    static String name(ContractGroup<?> group, TestInfo test) {
        return group.contract().getClass().getSimpleName() + "."
                + test.getTestMethod().map(method -> method.getName()).orElse(test.getDisplayName());
    }
}
