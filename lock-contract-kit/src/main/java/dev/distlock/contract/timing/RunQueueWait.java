package dev.distlock.contract.timing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long the calling thread has waited for a CPU while ready to run: the whole delay a loaded machine adds to a
 * call, which a sleeping probe sees only one wake-up at a time.
 */
@FunctionalInterface
interface RunQueueWait {

    /** Linux's count for the calling thread ({@code /proc/thread-self/schedstat}), or nothing where there is none. */
    RunQueueWait THIS_THREAD = () -> {
        try {
            String[] fields = Files.readString(Path.of("/proc/thread-self/schedstat"))
                    .trim()
                    .split(" ");
            return Long.parseLong(fields[1]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    };

    /** Nanoseconds the calling thread has waited for a CPU since it started, or -1 when the system does not say. */
    long waitedNanos();
}
