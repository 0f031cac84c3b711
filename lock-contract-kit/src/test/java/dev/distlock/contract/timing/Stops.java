package dev.distlock.contract.timing;

import java.io.IOException;
import java.time.Duration;

/** Stops a process (SIGSTOP) for a while from a shell of its own, so that even a stop of this JVM ends. */
final class Stops {

    private Stops() {}

    /** Stops {@code pid} for {@code pause}, starting now; returns the shell that will send SIGCONT. */
    static Process stop(long pid, Duration pause) throws IOException {
        String seconds = String.valueOf(pause.toMillis() / 1000.0);
        return new ProcessBuilder("sh", "-c", "kill -STOP " + pid + "; sleep " + seconds + "; kill -CONT " + pid)
                .redirectErrorStream(true)
                .start();
    }

    /** Stops {@code pid} for {@code pause} and returns when it runs again. */
    static void stopAndWait(long pid, Duration pause) throws IOException, InterruptedException {
        Process shell = stop(pid, pause);
        if (shell.waitFor() != 0) {
            throw new AssertionError("Could not stop and continue process " + pid);
        }
    }
}
