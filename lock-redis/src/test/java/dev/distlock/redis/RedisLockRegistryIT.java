package dev.distlock.redis;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The contract on one redis-server started for this class. */
class RedisLockRegistryIT extends LockRegistryContract {

    private static RedisServers servers;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        factory = servers.factory(servers.start());
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
    protected boolean guardsTakes(String key, String guardKey) {
        return true; // one server runs one script over any two keys
    }
}
