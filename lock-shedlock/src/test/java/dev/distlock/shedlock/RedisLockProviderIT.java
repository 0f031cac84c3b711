package dev.distlock.shedlock;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class RedisLockProviderIT extends LockProviderKit {

    private static RedisServers servers;
    private static ManagedProcess server;

    @BeforeAll
    static void startRedis() {
        servers = new RedisServers();
        server = servers.start();
    }

    @AfterAll
    static void stopRedis() {
        servers.close();
    }

    @Override
    protected LockRegistry newRegistry() {
        return RedisLockRegistry.builder(servers.factory(server)).build();
    }
}
