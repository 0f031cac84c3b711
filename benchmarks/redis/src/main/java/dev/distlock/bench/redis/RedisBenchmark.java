package dev.distlock.bench.redis;

import dev.distlock.core.FencedLock;
import dev.distlock.core.testing.Benchmark;
import dev.distlock.core.testing.ManagedProcess;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * distlock's Redis backend beside Redisson's RLock and Spring Integration's RedisLockRegistry,
 * same harness, same server: a redis-server this class starts on a free port (no persistence),
 * or the one at REDIS_URL. Argument: the Markdown file to write.
 */
public final class RedisBenchmark {

    private static final Duration WARMUP = Duration.ofSeconds(2);
    private static final Duration MEASURE = Duration.ofSeconds(5);
    private static final int THREADS = 4;

    private final String host;
    private final int port;
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<String> shares = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    private RedisBenchmark(String host, int port) {
        this.host = host;
        this.port = port;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "benchmarks/results/redis.md");
        String url = System.getenv("REDIS_URL");
        RedisServers servers = null;
        String host = "127.0.0.1";
        int port;
        if (url != null && !url.isBlank()) {
            URI uri = URI.create(url);
            host = uri.getHost();
            port = uri.getPort() > 0 ? uri.getPort() : 6379;
        } else {
            servers = new RedisServers();
            port = servers.start().port();
        }
        RedisBenchmark benchmark = new RedisBenchmark(host, port);
        try {
            List<Benchmark.Result> results = benchmark.run();
            String version = servers == null ? url : serverVersion();
            Benchmark.write(
                    out, "Redis backend benchmark", setup(version, benchmark.shares, benchmark.failures), results);
        } finally {
            benchmark.closeAll();
            if (servers != null) {
                servers.close();
            }
        }
        System.exit(0);
    }

    private List<Benchmark.Result> run() throws Exception {
        List<Benchmark.Result> results = new ArrayList<>();

        RedisLockRegistry distlock = distlock(factory());
        FencedLock distlockLock = distlock.obtain("bench-uncontended");
        results.add(Benchmark.uncontended(
                "distlock", WARMUP, MEASURE, () -> distlockLock.acquire().close()));
        RedissonClient redisson = redisson();
        RLock redissonLock = redisson.getLock("bench-redisson-uncontended");
        results.add(Benchmark.uncontended("Redisson RLock", WARMUP, MEASURE, () -> {
            redissonLock.lock();
            redissonLock.unlock();
        }));
        Lock springLock = springIntegration(factory(), false).obtain("bench-uncontended");
        results.add(Benchmark.uncontended("Spring Integration RedisLockRegistry", WARMUP, MEASURE, () -> {
            springLock.lock();
            springLock.unlock();
        }));

        FencedLock sharedDistlock = distlock.obtain("bench-contended-1");
        results.add(
                contended("distlock, 1 registry", () -> sharedDistlock.acquire().close()));
        RLock sharedRedisson = redisson.getLock("bench-redisson-contended-1");
        results.add(contended("Redisson RLock, 1 client", () -> {
            sharedRedisson.lock();
            sharedRedisson.unlock();
        }));
        Lock sharedSpring = springIntegration(factory(), false).obtain("bench-contended-1");
        results.add(contended("Spring Integration RedisLockRegistry, 1 registry", () -> {
            sharedSpring.lock();
            sharedSpring.unlock();
        }));

        IntFunction<Lock> distlockPerThread = i -> distlock(factory()).obtain("bench-contended-4");
        results.add(contendedPerThread("distlock, 4 registries", distlockPerThread, true));
        IntFunction<Lock> redissonPerThread = i -> redisson().getLock("bench-redisson-contended-4");
        results.add(contendedPerThread("Redisson RLock, 4 clients", redissonPerThread, false));
        IntFunction<Lock> springPerThread =
                i -> springIntegration(factory(), false).obtain("bench-contended-4");
        results.add(contendedPerThread(
                "Spring Integration RedisLockRegistry (SPIN_LOCK), 4 registries", springPerThread, false));
        IntFunction<Lock> springPubSubPerThread =
                i -> springIntegration(factory(), true).obtain("bench-contended-4-pubsub");
        results.add(contendedPerThread(
                "Spring Integration RedisLockRegistry (PUB_SUB_LOCK), 4 registries", springPubSubPerThread, false));
        return results;
    }

    /** 4 threads on one key, each with its own registry/client, as 4 JVMs would be. */
    private Benchmark.Result contendedPerThread(String library, IntFunction<Lock> lockFor, boolean distlock)
            throws InterruptedException {
        List<Lock> locks = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            locks.add(lockFor.apply(i));
        }
        AtomicInteger next = new AtomicInteger();
        ThreadLocal<Lock> mine = ThreadLocal.withInitial(() -> locks.get(next.getAndIncrement()));
        return contended(library, () -> {
            Lock lock = mine.get();
            if (distlock) {
                ((FencedLock) lock).acquire().close();
            } else {
                lock.lock();
                lock.unlock();
            }
        });
    }

    /**
     * The harness's contended run, also counting each thread's share of the operations: a lock
     * that lets the releasing thread take it straight back scores many operations while the
     * other threads starve, and the shares show it.
     */
    private Benchmark.Result contended(String library, Benchmark.Operation operation) throws InterruptedException {
        ConcurrentHashMap<Thread, LongAdder> perThread = new ConcurrentHashMap<>();
        Benchmark.Result result;
        try {
            result = Benchmark.contended(library, THREADS, WARMUP, MEASURE, () -> {
                operation.run();
                perThread
                        .computeIfAbsent(Thread.currentThread(), t -> new LongAdder())
                        .increment();
            });
        } catch (IllegalStateException e) {
            // Reported beside the table rather than ending the run: a failure is a result too.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            failures.add("- **" + library + " failed** under contention: `"
                    + cause.getClass().getSimpleName() + ": " + cause.getMessage() + "`");
            return new Benchmark.Result(
                    library, THREADS + " threads, one key: FAILED (see notes)", 0, 0, Double.NaN, Double.NaN);
        }
        long total = perThread.values().stream().mapToLong(LongAdder::sum).sum();
        List<Long> counts =
                perThread.values().stream().map(LongAdder::sum).sorted().toList();
        long smallest = counts.size() < THREADS ? 0 : counts.get(0);
        long largest = counts.isEmpty() ? 0 : counts.get(counts.size() - 1);
        shares.add(String.format(
                Locale.ROOT,
                "| %s | %.0f%% | %.0f%% |",
                library,
                100.0 * smallest / Math.max(1, total),
                100.0 * largest / Math.max(1, total)));
        return result;
    }

    private LettuceConnectionFactory factory() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        closing.add(factory::destroy);
        return factory;
    }

    private RedisLockRegistry distlock(LettuceConnectionFactory factory) {
        RedisLockRegistry registry = RedisLockRegistry.builder(factory).build();
        closing.add(0, registry);
        return registry;
    }

    private RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        RedissonClient client = Redisson.create(config);
        closing.add(0, client::shutdown);
        return client;
    }

    private org.springframework.integration.redis.util.RedisLockRegistry springIntegration(
            LettuceConnectionFactory factory, boolean pubSub) {
        var registry = new org.springframework.integration.redis.util.RedisLockRegistry(factory, "bench-si");
        if (pubSub) {
            registry.setRedisLockType(
                    org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
        }
        closing.add(0, registry::destroy);
        return registry;
    }

    private void closeAll() {
        for (AutoCloseable resource : closing) {
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("close failed: " + e);
            }
        }
    }

    private static String serverVersion() {
        try {
            Process process = new ProcessBuilder(
                            ManagedProcess.findExecutable("redis-server")
                                    .orElseThrow()
                                    .toString(),
                            "--version")
                    .start();
            String version = new String(process.getInputStream().readAllBytes()).trim();
            return version.replaceAll(".*v=([0-9.]+).*", "$1");
        } catch (Exception e) {
            return "?";
        }
    }

    private static String setup(String server, List<String> shares, List<String> failures) {
        return """
                One redis-server %s on loopback (no persistence), started by the benchmark, shared by all \
                libraries; Lettuce (spring-data-redis) for distlock and Spring Integration 7.1, Redisson 3.52 \
                with its defaults. Warm-up %d s, measurement %d s per row.

                - *distlock*: `RedisLockRegistry` (watchdog lease 30 s), `acquire()` + `close()` of one key: \
                one EVALSHA to acquire, one to release.
                - *Redisson RLock*: `lock()` + `unlock()` (watchdog lease 30 s).
                - *Spring Integration RedisLockRegistry*: `obtain(key).lock()` + `unlock()`, default \
                settings (SPIN_LOCK, 60 s expiry) unless the row says PUB_SUB_LOCK.
                - *1 registry / 1 client*: the 4 threads share one registry or client; *4 registries / \
                4 clients*: each thread has its own (stands for 4 JVMs), so every handoff goes through Redis.
                - "handoffs" counts completed acquire+release pairs of all threads. A lock that lets the \
                releasing thread take it straight back (barging) completes many while the other threads \
                wait; the shares of the least and the most busy thread (warm-up included) show it:

                | contended row | least busy thread | busiest thread |
                |---|---:|---:|
                %s

                %s
                - The machine was shared with other builds while this ran; compare rows of one run only.
                """.formatted(
                server,
                WARMUP.toSeconds(),
                MEASURE.toSeconds(),
                String.join("\n", shares),
                failures.isEmpty() ? "" : String.join("\n", failures) + "\n").strip();
    }
}
