package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.ReadWriteLockContract;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The read/write contract on a 3-master Redis Cluster started for this class. */
class RedisClusterReadWriteLockIT extends ReadWriteLockContract {

    private static RedisServers servers;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = new RedisServers();
        factory = servers.clusterFactory(servers.startCluster());
    }

    @AfterAll
    static void stopCluster() {
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return RedisLockRegistry.builder(factory).options(options).build();
    }

    @Test
    void keysWithBracesKeepTheWholeStructureInOneSlot() throws Exception {
        // The writer hash, the reader set and the waiting-writer set go to one script call: in
        // different slots it would fail with CROSSSLOT.
        for (String suffix : List.of("}x", "a}{b", "{", "{}", "%7B", "%")) {
            FencedReadWriteLock lock = registryA.readWriteLock(key() + suffix);
            try (LockHandle write = lock.writeLock().tryAcquire(Duration.ZERO).orElseThrow();
                    LockHandle read = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(registryB.readWriteLock(lock.key()).readLock().tryAcquire(Duration.ZERO))
                        .isEmpty();
                assertThat(read.token().compareTo(write.token())).isGreaterThanOrEqualTo(0);
            }
        }
    }
}
