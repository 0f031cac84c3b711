package dev.distlock.contract.timing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe sees a JVM that was stopped, in this JVM and in a child JVM reporting through its file. */
class StallProbeTest {

    private static final Duration PAUSE = Duration.ofMillis(400);

    /** Less than the pause: the probe's thread runs again a little before the shell's sleep is over. */
    private static final Duration SEEN = Duration.ofMillis(300);

    @TempDir
    Path dir;

    @Test
    void stallOfThisJvmIsSeenInsideItsWindowOnly() throws Exception {
        try (StallProbe probe = StallProbe.start()) {
            Thread.sleep(50);
            Instant before = Instant.now();
            Stops.stopAndWait(ProcessHandle.current().pid(), PAUSE);
            Thread.sleep(50);
            Instant after = Instant.now();

            assertThat(probe.worstStall(before, after)).isGreaterThanOrEqualTo(SEEN);
            assertThat(probe.worstStall(after.plusMillis(1), Instant.now().plusSeconds(1)))
                    .isLessThan(SEEN);
        }
    }

    @Test
    void childJvmReportsItsStallsToItsParent() throws Exception {
        Path file = dir.resolve("child-stalls.txt");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path")));
        command.addAll(ProbedMain.arguments(file, ProbedChild.class));
        command.add("as-told");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("running as-told");
            Instant before = Instant.now();
            Stops.stopAndWait(child.pid(), PAUSE);
            Thread.sleep(100);
            Instant after = Instant.now();

            StallSource childStalls = StallSource.reportedIn(file);
            long deadline = System.nanoTime() + 2_000_000_000L; // a loaded machine can delay the child's report
            while (childStalls.worstStall(before, after).compareTo(SEEN) < 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(childStalls.worstStall(before, after)).isGreaterThanOrEqualTo(SEEN);
            StallSource everyJvm = StallSource.worstOf(List.of(StallProbe.shared(), childStalls));
            assertThat(everyJvm.worstStall(before, after)).isGreaterThanOrEqualTo(SEEN);
        } finally {
            child.destroyForcibly().waitFor();
        }
    }

    @Test
    void missingReportMeansTheChildHasNotStalled() {
        StallSource none = StallSource.reportedIn(dir.resolve("never-written.txt"));
        assertThat(none.worstStall(Instant.EPOCH, Instant.now())).isEqualTo(Duration.ZERO);
    }
}
