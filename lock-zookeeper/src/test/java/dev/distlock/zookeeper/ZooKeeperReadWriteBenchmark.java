package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.rw.ReadWriteBenchmark;
import dev.distlock.core.testing.Benchmark;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * Read/write figures on one in-process ZooKeeper server, two registries over two clients (two
 * sessions, standing for two JVMs); run on demand ({@code -Dtest=ZooKeeperReadWriteBenchmark}). The
 * server skips fsync, as the integration tests' does: on a shared machine the disk, not the lock,
 * would set every row.
 */
class ZooKeeperReadWriteBenchmark {

    private static final String FORCE_SYNC = "zookeeper.forceSync";

    @Test
    void measure() throws Exception {
        String forceSync = System.setProperty(FORCE_SYNC, "no");
        try {
            measureOnOneServer();
        } finally {
            if (forceSync == null) {
                System.clearProperty(FORCE_SYNC);
            } else {
                System.setProperty(FORCE_SYNC, forceSync);
            }
        }
    }

    private static void measureOnOneServer() throws Exception {
        CuratorClients clients = new CuratorClients();
        try (TestingServer server = new TestingServer(true)) {
            try (ZooKeeperLockRegistry a = ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                            .build();
                    ZooKeeperLockRegistry b = ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                            .build()) {
                List<Benchmark.Result> results = ReadWriteBenchmark.run("zookeeper", a, b);
                Benchmark.write(Path.of("target/read-write-zookeeper.md"), "zookeeper", "", results);
                assertThat(results)
                        .allSatisfy(result -> assertThat(result.operations()).isPositive());
            } finally {
                clients.closeAll();
            }
        }
    }
}
