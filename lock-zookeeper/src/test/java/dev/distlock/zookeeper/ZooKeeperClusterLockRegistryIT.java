package dev.distlock.zookeeper;

import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract on a 3-node in-process ensemble; each registry's client may talk to another node. */
class ZooKeeperClusterLockRegistryIT extends ZooKeeperContract {

    private static TestingCluster cluster;

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
    String connectString() {
        return cluster.getConnectString();
    }
}
