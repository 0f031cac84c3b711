package dev.distlock.redis;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract in Redlock mode over 5 independent redis-servers; each registry opens its own connections. */
class RedlockLockRegistryIT extends LockRegistryContract {

    private static RedisServers servers;
    private static List<String> uris;

    @BeforeAll
    static void startNodes() {
        servers = new RedisServers();
        uris = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ManagedProcess node = servers.start();
            uris.add("redis://" + node.address());
        }
    }

    @AfterAll
    static void stopNodes() {
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return RedlockLockRegistry.builder().nodeUris(uris).options(options).build();
    }
}
