package dev.distlock.fencingharness;

import dev.distlock.core.fencing.FencingClaim;
import dev.distlock.core.fencing.StaleTokenException;
import dev.distlock.fencing.redis.RedisFenceStore;
import java.time.Duration;
import java.util.List;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The ledger as a Redis string: fenced through RedisFenceStore's getForWrite and set. */
final class RedisLedger implements Ledger {

    private final LettuceConnectionFactory factory;
    private final RedisFenceStore store;
    private final StringRedisTemplate redis;
    private final String key;

    RedisLedger(String address, String name) {
        String[] hostPort = address.split(":");
        factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        store = RedisFenceStore.builder(factory).build();
        redis = new StringRedisTemplate(factory);
        key = "fencing-harness:" + name;
    }

    @Override
    public boolean append(FencingClaim claim, String op, Runnable afterRead) {
        if (claim == null) {
            String value = redis.opsForValue().get(key);
            afterRead.run();
            redis.opsForValue().set(key, Ledger.join(value, op));
            return true;
        }
        try {
            String value = store.getForWrite(key, claim).orElse(null);
            afterRead.run();
            store.set(key, claim, Ledger.join(value, op));
            return true;
        } catch (StaleTokenException refused) {
            return false;
        }
    }

    @Override
    public List<String> entries() {
        return Ledger.split(redis.opsForValue().get(key));
    }

    @Override
    public void close() {
        factory.destroy();
    }
}
