package dev.distlock.contract.timing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The stalls a child JVM's probe reported, one {@code epochMillis lateMillis} line each, read when asked. */
final class StallFile implements StallSource {

    private final Path file;

    StallFile(Path file) {
        this.file = file;
    }

    @Override
    public Duration worstStall(Instant from, Instant to) {
        StallLog log = new StallLog();
        for (String line : lines()) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length == 2) { // a line the child was still writing when it was killed is skipped
                try {
                    log.add(Long.parseLong(fields[0]), Math.round(Double.parseDouble(fields[1]) * 1000));
                } catch (NumberFormatException e) {
                    // a partial line, skipped the same way
                }
            }
        }
        return log.worstStall(from, to);
    }

    private List<String> lines() {
        if (!Files.exists(file)) {
            return List.of(); // the child has not stalled yet, or not started its probe
        }
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the stalls a child JVM reported in " + file, e);
        }
    }
}
