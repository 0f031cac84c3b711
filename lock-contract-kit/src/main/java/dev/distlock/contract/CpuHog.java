package dev.distlock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Threads that spin on every core for a bounded time, to load the machine the way a busy neighbour does. */
final class CpuHog implements AutoCloseable {

    private final long until;
    private final List<Thread> spinners = new ArrayList<>();
    private volatile boolean stopped;

    private CpuHog(int threads, Duration limit) {
        this.until = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < threads; i++) {
            Thread spinner = new Thread(this::spin, "cpu-hog-" + i);
            spinner.setDaemon(true);
            spinners.add(spinner);
            spinner.start();
        }
    }

    /** {@code perCore} spinning threads per core, each stopping after {@code limit} at the latest. */
    static CpuHog onEveryCore(int perCore, Duration limit) {
        return new CpuHog(perCore * Runtime.getRuntime().availableProcessors(), limit);
    }

    boolean running() {
        return !stopped && System.nanoTime() < until;
    }

    private void spin() {
        long sink = 0;
        while (running()) {
            sink += System.nanoTime() % 7;
        }
        if (sink == 42) {
            Thread.onSpinWait();
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
