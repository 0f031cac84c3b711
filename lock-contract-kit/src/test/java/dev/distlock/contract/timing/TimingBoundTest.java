package dev.distlock.contract.timing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.timing.TimingBound.Timed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The inconclusive rule against a fake stall source: which overruns fail, which are measured again, and how often. */
class TimingBoundTest {

    private static final Duration MARGIN = Duration.ofMillis(100);
    private static final Duration BOUND = Duration.ofMillis(500);
    private static final Timed ON_TIME = new Timed(Duration.ofMillis(450), BOUND);
    private static final Timed LATE = new Timed(Duration.ofMillis(800), BOUND);

    @TempDir
    Path dir;

    private final Deque<Duration> stalls = new ArrayDeque<>();
    private final Deque<Long> cpuWaitReadings = new ArrayDeque<>();
    private final AtomicInteger measurements = new AtomicInteger();

    private TimingBound bound() {
        return TimingBound.of("TimingBoundTest.case", MARGIN)
                .withStalls((from, to) -> stalls.isEmpty() ? Duration.ZERO : stalls.poll())
                .withRunQueue(() -> cpuWaitReadings.isEmpty() ? 0 : cpuWaitReadings.poll())
                .withReport(dir.resolve("inconclusive.txt"));
    }

    private TimingBound.Measurement returning(Timed... results) {
        Deque<Timed> queue = new ArrayDeque<>(List.of(results));
        return () -> {
            measurements.incrementAndGet();
            return queue.poll();
        };
    }

    private List<String> reported() throws Exception {
        Path file = dir.resolve("inconclusive.txt");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void measurementWithinItsBoundPassesWithoutRepeat() throws Exception {
        stalls.add(Duration.ofSeconds(5));
        assertThat(bound().check(returning(ON_TIME))).isZero();
        assertThat(measurements).hasValue(1);
        assertThat(reported()).isEmpty();
    }

    @Test
    void overrunWithoutAStallFails() {
        assertThatThrownBy(() -> bound().check(returning(LATE, ON_TIME)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("TimingBoundTest.case")
                .hasMessageContaining("overrun=300ms stall=0ms margin=100ms");
        assertThat(measurements).hasValue(1);
    }

    @Test
    void overrunWithAStallNoLongerThanTheMarginFails() {
        stalls.add(MARGIN);
        assertThatThrownBy(() -> bound().check(returning(LATE, ON_TIME))).isInstanceOf(AssertionError.class);
        assertThat(measurements).hasValue(1);
    }

    @Test
    void overrunDuringAStallOverTheMarginIsMeasuredAgainAndReported() throws Exception {
        stalls.add(Duration.ofMillis(400));
        assertThat(bound().check(returning(LATE, ON_TIME))).isEqualTo(1);
        assertThat(measurements).hasValue(2);
        assertThat(reported())
                .containsExactly("INCONCLUSIVE-TIMING TimingBoundTest.case took=800ms bound=500ms overrun=300ms"
                        + " stall=400ms margin=100ms probed=400ms cpuWait=0ms repeat=1/2");
    }

    @Test
    void overrunWhileTheMeasuringThreadWaitedForACpuLongerThanTheMarginIsMeasuredAgain() throws Exception {
        cpuWaitReadings.addAll(List.of(1_000_000_000L, 1_250_000_000L)); // before and after: 250 ms waiting
        assertThat(bound().check(returning(LATE, ON_TIME))).isEqualTo(1);
        assertThat(reported()).singleElement().asString().contains("stall=250ms", "probed=0ms cpuWait=250ms");
    }

    @Test
    void overrunIsJudgedByTheProbesWhereTheSystemDoesNotSayHowLongTheThreadWaited() {
        cpuWaitReadings.addAll(List.of(-1L, 5_000_000_000L));
        assertThatThrownBy(() -> bound().check(returning(LATE, ON_TIME)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("cpuWait=0ms");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void measuringThreadsWaitForACpuIsReadOnLinux() {
        assertThat(RunQueueWait.THIS_THREAD.waitedNanos()).isNotNegative();
    }

    @Test
    void repeatThatOverrunsWithoutAStallFails() {
        stalls.add(Duration.ofMillis(400));
        assertThatThrownBy(() -> bound().check(returning(LATE, LATE, ON_TIME))).isInstanceOf(AssertionError.class);
        assertThat(measurements).hasValue(2);
    }

    @Test
    void thirdInconclusiveMeasurementFails() throws Exception {
        stalls.addAll(List.of(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1)));
        assertThatThrownBy(() -> bound().check(returning(LATE, LATE, LATE, ON_TIME)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("inconclusive 3 times");
        assertThat(measurements).hasValue(3);
        assertThat(reported()).hasSize(2).last().asString().endsWith("repeat=2/2");
    }

    @Test
    void failedAssertionInsideTheMeasurementIsNeverRepeated() {
        stalls.add(Duration.ofSeconds(1));
        assertThatThrownBy(() -> bound().check(() -> {
                    measurements.incrementAndGet();
                    throw new AssertionError("the wait came back holding the lock");
                }))
                .hasMessage("the wait came back holding the lock");
        assertThat(measurements).hasValue(1);
    }

    @Test
    void negativeMarginIsRefused() {
        assertThatThrownBy(() -> TimingBound.of("TimingBoundTest.case", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TimingBoundTest.case");
    }
}
