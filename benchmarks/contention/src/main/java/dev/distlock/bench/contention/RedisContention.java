package dev.distlock.bench.contention;

import dev.distlock.bench.Benchmark.Operation;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.servers.RedisProcesses;
import dev.distlock.core.FencedLock;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One redis-server this benchmark starts (no persistence): distlock's {@code RedisLockRegistry}
 * beside Redisson's {@code RReadWriteLock} and {@code RLock}.
 */
final class RedisContention implements Backend {

    private static final String RW_KEY = "bench-rw";
    private static final String MANY_KEY = "bench-many";

    private final RedisServers servers = new RedisServers();
    private final ManagedProcess server = servers.start();

    @Override
    public String describe() {
        return serverVersion() + " on loopback (no persistence), started by the benchmark; Redisson "
                + Redisson.class.getPackage().getImplementationVersion();
    }

    /** Two registries, each over a connection factory of its own, beside two Redisson clients with their defaults. */
    @Override
    public ReadWriteMix.Result readWrite(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            RedisLockRegistry a =
                    closer.add(RedisLockRegistry.builder(factory(closer)).build());
            RedisLockRegistry b =
                    closer.add(RedisLockRegistry.builder(factory(closer)).build());
            RedissonClient ra = redisson(closer, config());
            RedissonClient rb = redisson(closer, config());
            RReadWriteLock peerA = ra.getReadWriteLock(RW_KEY);
            RReadWriteLock peerB = rb.getReadWriteLock(RW_KEY);
            List<Operation> peerReaders = new ArrayList<>();
            for (int i = 0; i < ReadWriteMix.READERS; i++) {
                peerReaders.add(lockUnlock((i % 2 == 0 ? peerA : peerB).readLock()));
            }
            return ReadWriteMix.VersusPeer.measure(
                    "redis",
                    ReadWriteMix.Subject.distlock("distlock", a, b, RW_KEY),
                    new ReadWriteMix.Subject("Redisson RReadWriteLock", peerReaders, lockUnlock(peerB.writeLock())),
                    settings);
        }
    }

    /**
     * {@code waiters} registries, each over a connection factory of its own, beside as many
     * Redisson clients; every client has its own threads (Lettuce's client resources, Redisson's
     * Netty event loops), as it would in a JVM of its own. Each Redisson client keeps 1 connection
     * open (at most 2) instead of its default 24, since it has one thread.
     */
    @Override
    public List<ManyWaiters.Outcome> manyWaiters(Settings settings) throws Exception {
        try (Closer closer = new Closer()) {
            List<Operation> ours = new ArrayList<>();
            List<Operation> theirs = new ArrayList<>();
            for (int i = 0; i < settings.waiters(); i++) {
                RedisLockRegistry registry =
                        closer.add(RedisLockRegistry.builder(factory(closer)).build());
                FencedLock lock = registry.obtain(MANY_KEY);
                ours.add(() -> lock.acquire().close());
                Config config = config();
                config.useSingleServer()
                        .setConnectionMinimumIdleSize(1)
                        .setConnectionPoolSize(2)
                        .setSubscriptionConnectionMinimumIdleSize(1);
                theirs.add(lockUnlock(redisson(closer, config).getLock(MANY_KEY)));
            }
            String clients = settings.waiters() + " clients, a thread each";
            return ManyWaiters.measure(
                    "redis",
                    List.of(
                            new ManyWaiters.Subject(
                                    "distlock",
                                    ours,
                                    closer.add(new RedisCounters(server.port(), server.pid(), "distlock:*")),
                                    clients + ", a `RedisLockRegistry` and `LettuceConnectionFactory` each"),
                            new ManyWaiters.Subject(
                                    "Redisson RLock",
                                    theirs,
                                    closer.add(
                                            new RedisCounters(server.port(), server.pid(), "redisson_lock__channel*")),
                                    clients + ", a `RedissonClient` each")),
                    settings);
        }
    }

    private static Operation lockUnlock(RLock lock) {
        return () -> {
            lock.lock();
            lock.unlock();
        };
    }

    @Override
    public dev.distlock.core.LockRegistry newRegistry(Closer closer) {
        return closer.add(RedisLockRegistry.builder(factory(closer)).build());
    }

    /**
     * A started factory with client resources of its own. Registries whose factories share one
     * {@code ClientResources} see each other's connection events, which one JVM per registry never does.
     */
    private LettuceConnectionFactory factory(Closer closer) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", server.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        return closer.add(factory, factory::destroy);
    }

    /** Redisson's defaults, on this server. */
    private Config config() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
        return config;
    }

    private static RedissonClient redisson(Closer closer, Config config) {
        RedissonClient client = Redisson.create(config);
        return closer.add(client, client::shutdown);
    }

    private static String serverVersion() {
        return RedisProcesses.version();
    }

    @Override
    public LeaderHandOver.Result leaderHandOver() throws Exception {
        try (Closer closer = new Closer()) {
            return LeaderHandOver.measure(
                    "redis",
                    closer.add(RedisLockRegistry.builder(factory(closer)).build()),
                    closer.add(RedisLockRegistry.builder(factory(closer)).build()));
        }
    }

    @Override
    public void close() {
        servers.close();
    }
}
