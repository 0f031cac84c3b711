package dev.distlock.leadertests;

import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lease is the session: a stopped or killed leader's node goes when its session expires. */
class ZooKeeperSemaphoreFaultIT extends SemaphoreFaultKit {

    private static TestingServer server;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
    }

    @Override
    protected BackendClients newClients() {
        return new BackendClients(List.of("zookeeper", server.getConnectString()), Duration.ofSeconds(4));
    }
}
