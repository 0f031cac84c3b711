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
 * sessions, standing for two JVMs); run on demand ({@code -Dtest=ZooKeeperReadWriteBenchmark}).
 */
class ZooKeeperReadWriteBenchmark {

    @Test
    void measure() throws Exception {
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
