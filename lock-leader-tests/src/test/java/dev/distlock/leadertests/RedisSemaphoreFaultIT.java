package dev.distlock.leadertests;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class RedisSemaphoreFaultIT extends SemaphoreFaultKit {

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
    protected BackendClients newClients() {
        return new BackendClients(List.of("redis", Integer.toString(server.port())), Duration.ofMillis(1500));
    }
}
