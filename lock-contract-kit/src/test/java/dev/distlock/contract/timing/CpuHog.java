package dev.distlock.contract.timing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Threads that spin on every core of the machine until closed or until their time is up, whichever comes first. */
final class CpuHog implements AutoCloseable {

    private final List<Thread> spinners = new ArrayList<>();
    private volatile boolean stopped;

    CpuHog(int threadsPerCore, Duration atMost) {
        long end = System.nanoTime() + atMost.toNanos();
        int threads = threadsPerCore * Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < threads; i++) {
            Thread spinner = new Thread(() -> spin(end), "cpu-hog-" + i);
            spinner.setDaemon(true);
            spinner.start();
            spinners.add(spinner);
        }
    }

    private void spin(long end) {
        long sink = 0;
        while (!stopped && System.nanoTime() < end) {
            sink += Long.numberOfTrailingZeros(sink + 1); // work the compiler cannot drop
        }
        if (sink == 42) {
            System.out.print("");
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread spinner : spinners) {
            spinner.join();
        }
    }
}
