package dev.distlock.contract.timing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Threads that spin on every core until closed or until their time is up, whichever comes first. A busy neighbour,
 * for tests that must hold on a loaded machine and for controls that show a timing check tells load from overrun.
 */
public final class CpuHog implements AutoCloseable {

    private final long until;
    private final List<Thread> spinners = new ArrayList<>();
    private volatile boolean stopped;

    private CpuHog(int threads, Duration atMost) {
        this.until = System.nanoTime() + atMost.toNanos();
        for (int i = 0; i < threads; i++) {
            Thread spinner = new Thread(this::spin, "cpu-hog-" + i);
            spinner.setDaemon(true);
            spinners.add(spinner);
            spinner.start();
        }
    }

    /** {@code perCore} spinning threads per core, each stopping after {@code atMost} at the latest. */
    public static CpuHog onEveryCore(int perCore, Duration atMost) {
        return new CpuHog(perCore * Runtime.getRuntime().availableProcessors(), atMost);
    }

    /** {@code count} spinning threads in all, each stopping after {@code atMost} at the latest. */
    public static CpuHog threads(int count, Duration atMost) {
        return new CpuHog(count, atMost);
    }

    /** True until closed or until its time is up. */
    public boolean running() {
        return !stopped && System.nanoTime() < until;
    }

    private void spin() {
        long sink = 0;
        while (running()) {
            sink += Long.numberOfTrailingZeros(sink + 1); // work the compiler cannot drop
        }
        if (sink == 42) {
            Thread.onSpinWait();
        }
    }

    /** Stops the spinning threads and waits for them to end. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread spinner : spinners) {
            spinner.join();
        }
    }
}
