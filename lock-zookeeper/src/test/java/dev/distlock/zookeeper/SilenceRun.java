package dev.distlock.zookeeper;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Threads that take and release a few shared keys with one wait time, round after round, while the server is frozen
 * for a while: what each call took, acquisitions and releases apart, so that a test can compare them with the wait
 * time plus the answer budget (contract 8), through a {@link dev.distlock.contract.timing.TimingBound} that judges an
 * overrun by this JVM's stalls.
 */
final class SilenceRun {

    /** One call: an acquisition or a release, how long it took and how it ended. */
    record Call(boolean release, Duration took, String outcome) {

        @Override
        public String toString() {
            return (release ? "release" : "acquisition") + " of " + took.toMillis() + " ms: " + outcome;
        }
    }

    private final List<LockRegistry> registries;
    private final int threads;
    private final Duration wait;
    private final String keyPrefix;
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean running = true;

    /** A run whose threads share the four keys {@code keyPrefix}-0 to -3: a run of new keys, for a new measurement. */
    SilenceRun(List<LockRegistry> registries, int threads, Duration wait, String keyPrefix) {
        this.registries = registries;
        this.threads = threads;
        this.wait = wait;
        this.keyPrefix = keyPrefix;
    }

    /** Runs {@code before}, freezes the server for {@code silence} with {@code freeze}, then runs {@code after}. */
    List<Call> around(Runnable freeze, Runnable thaw, Duration before, Duration silence, Duration after)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            LockRegistry registry = registries.get(i % registries.size());
            String key = keyPrefix + "-" + (i % 4);
            workers.add(pool.submit(() -> loop(registry, key)));
        }
        Thread.sleep(before.toMillis());
        freeze.run();
        try {
            Thread.sleep(silence.toMillis());
        } finally {
            thaw.run();
        }
        Thread.sleep(after.toMillis());
        running = false;
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        return List.copyOf(calls);
    }

    private Void loop(LockRegistry registry, String key) throws InterruptedException {
        while (running) {
            long start = System.nanoTime();
            Optional<LockHandle> held;
            try {
                held = registry.obtain(key).tryAcquire(wait);
            } catch (LockBackendException e) {
                calls.add(new Call(false, since(start), e.getMessage()));
                continue;
            }
            calls.add(new Call(false, since(start), held.isPresent() ? "held" : "empty"));
            if (held.isPresent()) {
                Thread.sleep(20);
                long released = System.nanoTime();
                try {
                    held.get().close();
                    calls.add(new Call(true, since(released), "released"));
                } catch (LockBackendException e) {
                    calls.add(new Call(true, since(released), e.getMessage()));
                }
            }
        }
        return null;
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
