package dev.distlock.redis;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.testing.ServerStateKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** {@link RedisServerSideContract} on a 3-master Redis Cluster. */
class ClusterRedisServerSideIT extends RedisServerSideContract {

    private static RedisServers servers;
    private static List<ManagedProcess> masters;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = new RedisServers();
        masters = servers.startCluster();
        factory = servers.clusterFactory(masters);
    }

    @AfterAll
    static void stopCluster() {
        servers.close();
    }

    @Override
    protected LockRegistry registry(Duration lease) {
        return RedisLockRegistry.builder(factory).leaseTime(lease).build();
    }

    @Override
    protected List<ManagedProcess> servers() {
        return masters;
    }

    @Override
    protected String setup() {
        return "Redis Cluster (3 masters)";
    }

    @Override
    protected int distinctKeys() {
        return ServerStateKeys.count(20_000);
    }

    @Override
    protected int distinctSemaphores() {
        return ServerStateKeys.semaphores(5_000);
    }
}
