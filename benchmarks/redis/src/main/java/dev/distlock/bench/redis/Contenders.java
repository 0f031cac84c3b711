package dev.distlock.bench.redis;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockHandle;
import dev.distlock.redis.RedisLockRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The libraries of the Redis benchmark, each with connections of its own. */
final class Contenders {

    static final String RAW = "raw Lettuce SET NX PX + Lua compare-and-delete";
    static final String ACKNOWLEDGED = "distlock RedisLockRegistry, 1 replica acknowledges (WAIT)";

    private final String host;
    private final int port;

    Contenders(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** The baseline: no fencing, no reentrancy, no renewal; two round trips per acquire+release. */
    Contender raw() {
        RedisClient client = RedisClient.create(RedisURI.create(host, port));
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        String release = redis.scriptLoad(
                "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end");
        SetArgs nxPx = SetArgs.Builder.nx().px(30_000);
        AtomicLong tokens = new AtomicLong();
        return new Named(
                RAW,
                key -> new Contender.LockOps() {
                    private String token;

                    @Override
                    public void acquire() {
                        token = Long.toString(tokens.incrementAndGet());
                        while (!"OK".equals(redis.set(key, token, nxPx))) {
                            Thread.onSpinWait(); // busy spin: the fastest a waiter without wake-ups can be
                        }
                    }

                    @Override
                    public void release() {
                        redis.evalsha(release, ScriptOutputType.INTEGER, new String[] {key}, token);
                    }
                },
                () -> {
                    connection.close();
                    client.shutdown();
                });
    }

    Contender distlock() {
        return distlock(0);
    }

    /** distlock whose grants wait for {@code replicas} replicas to acknowledge them ({@code WAIT}). */
    Contender distlock(int replicas) {
        LettuceConnectionFactory factory = factory();
        RedisLockRegistry.Builder builder = RedisLockRegistry.builder(factory);
        if (replicas > 0) {
            builder.replicaAcknowledgements(replicas, java.time.Duration.ofSeconds(1));
        }
        RedisLockRegistry registry = builder.build();
        return new Named(
                replicas > 0 ? ACKNOWLEDGED : "distlock RedisLockRegistry",
                key -> {
                    FencedLock lock = registry.obtain(key);
                    return new Contender.LockOps() {
                        private LockHandle handle;

                        @Override
                        public void acquire() throws InterruptedException {
                            handle = lock.acquire();
                        }

                        @Override
                        public void release() {
                            handle.close();
                        }
                    };
                },
                () -> {
                    registry.close();
                    factory.destroy();
                });
    }

    /** The build given by {@code -Ddistlock.previous}, for before/after figures of one run. */
    Contender previous() {
        return PreviousDistlock.open(host, port);
    }

    Contender springIntegration(boolean pubSub) {
        LettuceConnectionFactory factory = factory();
        var registry = new org.springframework.integration.redis.util.RedisLockRegistry(factory, "bench-si");
        if (pubSub) {
            registry.setRedisLockType(
                    org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
        }
        return new Named(
                "Spring Integration RedisLockRegistry" + (pubSub ? " (PUB_SUB_LOCK)" : ""),
                key -> lockOps(registry.obtain(key)),
                () -> {
                    registry.destroy();
                    factory.destroy();
                });
    }

    Contender redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        RedissonClient client = Redisson.create(config);
        return new Named(
                "Redisson RLock",
                key -> {
                    RLock lock = client.getLock("bench-redisson:" + key);
                    return lockOps(lock);
                },
                client::shutdown);
    }

    private static Contender.LockOps lockOps(Lock lock) {
        return new Contender.LockOps() {
            @Override
            public void acquire() {
                lock.lock();
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
    }

    private LettuceConnectionFactory factory() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** A contender from its parts. */
    private record Named(String name, java.util.function.Function<String, Contender.LockOps> ops, Runnable closing)
            implements Contender {

        @Override
        public Contender.LockOps forKey(String key) {
            return ops.apply(key);
        }

        @Override
        public void close() {
            closing.run();
        }
    }
}
