package dev.distlock.zookeeper;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.LockRegistryContract;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The contract on a 3-node in-process ensemble; each registry's client may talk to another node. */
class ZooKeeperClusterLockRegistryIT extends LockRegistryContract {

    private static TestingCluster cluster;
    private static final CuratorClients clients = new CuratorClients();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new TestingCluster(3);
        cluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        clients.closeAll();
        cluster.close();
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return ZooKeeperLockRegistry.builder(clients.connect(cluster.getConnectString()))
                .options(options)
                .build();
    }

    @BeforeEach
    void closePreviousClients() {
        clients.closeRetired();
    }

    @AfterEach
    void retireClients() {
        clients.retireAll();
    }
}
