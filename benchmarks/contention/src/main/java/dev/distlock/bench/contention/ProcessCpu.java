package dev.distlock.bench.contention;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/** CPU time of a local process (all its threads, user and system) from {@code /proc/<pid>/stat}; Linux only. */
final class ProcessCpu {

    private static final double TICKS_PER_SECOND = ticksPerSecond();

    private ProcessCpu() {}

    /** utime + stime of {@code pid} in microseconds; empty when the process is gone or there is no /proc. */
    static OptionalDouble micros(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name in parentheses may hold spaces; the fields after it are fixed:
            // state is field 3, utime field 14, stime field 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return OptionalDouble.of(ticks * 1e6 / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }

    private static double ticksPerSecond() {
        try {
            Process process = new ProcessBuilder("getconf", "CLK_TCK").start();
            String out = new String(process.getInputStream().readAllBytes()).trim();
            return process.waitFor() == 0 ? Double.parseDouble(out) : 100;
        } catch (IOException | RuntimeException e) {
            return 100; // the kernel's USER_HZ on every common Linux
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
