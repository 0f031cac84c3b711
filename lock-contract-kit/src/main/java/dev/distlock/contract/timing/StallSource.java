package dev.distlock.contract.timing;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** How late a JVM, or several, ran during a window of wall-clock time, as a {@link TimingBound} asks. */
@FunctionalInterface
public interface StallSource {

    /** The longest stall that overlaps {@code [from, to]}. Zero when there was none. */
    Duration worstStall(Instant from, Instant to);

    /** The worst stall of any of {@code sources}, every JVM involved in a measurement. */
    static StallSource worstOf(List<? extends StallSource> sources) {
        List<StallSource> all = List.copyOf(sources);
        return (from, to) -> all.stream()
                .map(source -> source.worstStall(from, to))
                .max(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    /** The stalls that a child JVM's probe appends to {@code file} (see {@link StallProbe#jvmOption}). */
    static StallSource reportedIn(java.nio.file.Path file) {
        return new StallFile(file);
    }
}
