package dev.distlock.redis;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.testing.ServerStateKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RedisServerSideContract} in Redlock mode over 3 independent redis-servers. */
class RedlockServerSideIT extends RedisServerSideContract {

    private static RedisServers servers;
    private static final List<ManagedProcess> nodes = new ArrayList<>();

    @BeforeAll
    static void startNodes() {
        servers = new RedisServers();
        for (int i = 0; i < 3; i++) {
            nodes.add(servers.start());
        }
    }

    @AfterAll
    static void stopNodes() {
        servers.close();
    }

    @Override
    protected LockRegistry registry(Duration lease) {
        return RedlockLockRegistry.builder()
                .nodeUris(
                        nodes.stream().map(node -> "redis://" + node.address()).toList())
                .leaseTime(lease)
                .build();
    }

    @Override
    protected List<ManagedProcess> servers() {
        return nodes;
    }

    @Override
    protected String setup() {
        return "Redlock (3 nodes)";
    }

    @Override
    protected int distinctKeys() {
        return ServerStateKeys.count(20_000);
    }

    @Override
    protected int distinctSemaphores() {
        return ServerStateKeys.semaphores(3_000);
    }
}
