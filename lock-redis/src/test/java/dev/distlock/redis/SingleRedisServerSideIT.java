package dev.distlock.redis;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.testing.ServerStateKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** {@link RedisServerSideContract} on one redis-server. */
class SingleRedisServerSideIT extends RedisServerSideContract {

    private static RedisServers servers;
    private static ManagedProcess server;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
    }

    @AfterAll
    static void stopServer() {
        servers.close();
    }

    @Override
    protected LockRegistry registry(Duration lease) {
        return RedisLockRegistry.builder(factory).leaseTime(lease).build();
    }

    @Override
    protected List<ManagedProcess> servers() {
        return List.of(server);
    }

    @Override
    protected String setup() {
        return "Redis (single)";
    }

    @Override
    protected int distinctKeys() {
        return ServerStateKeys.count(100_000);
    }

    @Override
    protected int distinctSemaphores() {
        return ServerStateKeys.semaphores(10_000);
    }
}
