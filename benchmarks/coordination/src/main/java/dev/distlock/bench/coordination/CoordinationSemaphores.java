package dev.distlock.bench.coordination;

import dev.distlock.bench.Benchmark;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.semaphore.LeasedSemaphore;
import dev.distlock.core.semaphore.Permits;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.redisson.api.RedissonClient;

/** The semaphore pairs of {@link CoordinationBenchmark}: one permit acquired and released, alone and contended. */
final class CoordinationSemaphores {

    private CoordinationSemaphores() {}

    static List<CoordinationBenchmark.Pair> redis(
            LockRegistry registry, RedissonClient redisson, int permits, int threads, Duration wait, Duration lease) {
        return List.of(
                new CoordinationBenchmark.Pair(
                        "semaphore of " + permits + ", 1 permit with a fixed lease, acquire+release",
                        1,
                        new CoordinationBenchmark.Side(
                                "distlock LeasedSemaphore", permit(registry, "s1", permits, wait, lease)),
                        new CoordinationBenchmark.Side(
                                "Redisson RPermitExpirableSemaphore",
                                CoordinationBenchmark.redissonSemaphore(redisson, "rs1", permits, lease))),
                new CoordinationBenchmark.Pair(
                        "semaphore of 2, " + threads + " threads, 1 permit each with a fixed lease",
                        threads,
                        new CoordinationBenchmark.Side(
                                "distlock LeasedSemaphore", permit(registry, "s2", 2, wait, lease)),
                        new CoordinationBenchmark.Side(
                                "Redisson RPermitExpirableSemaphore",
                                CoordinationBenchmark.redissonSemaphore(redisson, "rs2", 2, lease))));
    }

    static List<CoordinationBenchmark.Pair> zooKeeper(
            LockRegistry registry, CuratorFramework curator, int permits, int threads, Duration wait, Duration lease) {
        // Curator's leases live as long as the session, as distlock's do on ZooKeeper: no fixed lease on either side.
        return List.of(
                new CoordinationBenchmark.Pair(
                        "semaphore of " + permits + ", 1 permit, acquire+release",
                        1,
                        new CoordinationBenchmark.Side(
                                "distlock LeasedSemaphore", permit(registry, "s1", permits, wait, null)),
                        new CoordinationBenchmark.Side(
                                "Curator InterProcessSemaphoreV2",
                                CoordinationBenchmark.curatorSemaphore(curator, "/bench/s1", permits))),
                new CoordinationBenchmark.Pair(
                        "semaphore of 2, " + threads + " threads, 1 permit each",
                        threads,
                        new CoordinationBenchmark.Side(
                                "distlock LeasedSemaphore", permit(registry, "s2", 2, wait, null)),
                        new CoordinationBenchmark.Side(
                                "Curator InterProcessSemaphoreV2",
                                CoordinationBenchmark.curatorSemaphore(curator, "/bench/s2", 2))));
    }

    /** One permit of {@code name}, with a fixed {@code lease} or, when null, renewed by the watchdog. */
    private static Benchmark.Operation permit(
            LockRegistry registry, String name, int permits, Duration wait, Duration lease) {
        LeasedSemaphore semaphore = LeasedSemaphore.of(registry, name, permits);
        return () -> {
            Permits taken = (lease == null ? semaphore.tryAcquire(1, wait) : semaphore.tryAcquire(1, wait, lease))
                    .orElseThrow(() -> new IllegalStateException("no permit of " + name + " within " + wait));
            taken.close();
        };
    }
}
