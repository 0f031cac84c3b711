package dev.distlock.redis;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The contract on one redis-server started for this class. */
class RedisLockRegistryIT extends LockRegistryContract {

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
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return RedisLockRegistry.builder(factory).options(options).build();
    }

    @Override
    protected LockRegistry createRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        FaultProxy proxy = proxies.to("127.0.0.1", server.port());
        LettuceConnectionFactory proxied = servers.factory(proxy.port());
        closeAfterTest(proxied::destroy);
        return RedisLockRegistry.builder(proxied).options(options).build();
    }

    @Override
    protected boolean guardsTakes(String key, String guardKey) {
        return true; // one server runs one script over any two keys
    }
}
