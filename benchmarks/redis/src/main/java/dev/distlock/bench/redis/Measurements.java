package dev.distlock.bench.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** The two measurements of the Redis benchmark: throughput on own keys, and hand-over latency. */
final class Measurements {

    private Measurements() {}

    /**
     * {@code threads} threads, each acquiring and releasing a key of its own for {@code duration};
     * returns completed acquire+release pairs per second.
     */
    static double throughput(Contender contender, int threads, Duration duration, String keyPrefix) throws Exception {
        AtomicLong operations = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Contender.LockOps ops = contender.forKey(keyPrefix + ":t" + t);
            Thread worker = new Thread(() -> {
                long count = 0;
                try {
                    ready.countDown();
                    start.await();
                    long end = window[1];
                    while (System.nanoTime() - end < 0) {
                        ops.acquire();
                        ops.release();
                        count++;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                operations.addAndGet(count);
            });
            worker.start();
            workers.add(worker);
        }
        ready.await();
        window[0] = System.nanoTime();
        window[1] = window[0] + duration.toNanos();
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(contender.name() + " failed", failure.get());
        }
        return operations.get() / (duration.toNanos() / 1e9);
    }

    /**
     * The time from the holder's release call (one client) to the waiter's acquire returning
     * (another client, its own connections), {@code samples} times; in microseconds.
     */
    static long[] handOver(Contender holderSide, Contender waiterSide, String key, int samples) throws Exception {
        Contender.LockOps holder = holderSide.forKey(key);
        Contender.LockOps waiter = waiterSide.forKey(key);
        Semaphore go = new Semaphore(0);
        Semaphore done = new Semaphore(0);
        AtomicLong acquiredAt = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiting = new Thread(() -> {
            try {
                for (int i = 0; i < samples; i++) {
                    go.acquire();
                    waiter.acquire();
                    acquiredAt.set(System.nanoTime());
                    waiter.release();
                    done.release();
                }
            } catch (Throwable e) {
                failure.set(e);
                done.release(samples);
            }
        });
        waiting.start();
        long[] micros = new long[samples];
        for (int i = 0; i < samples; i++) {
            holder.acquire();
            go.release();
            Thread.sleep(3); // the waiter is blocked (or spinning) on the key by now
            long releasedAt = System.nanoTime();
            holder.release();
            if (!done.tryAcquire(30, TimeUnit.SECONDS) || failure.get() != null) {
                throw new IllegalStateException(waiterSide.name() + ": the waiter did not get the key", failure.get());
            }
            micros[i] = (acquiredAt.get() - releasedAt) / 1_000;
        }
        waiting.join();
        return micros;
    }

    static long percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    static long[] sorted(List<long[]> parts) {
        long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        return all;
    }
}
