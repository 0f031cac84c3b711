package dev.distlock.leadertests;

import dev.distlock.contract.servers.EtcdProcess;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One etcd member on free ports; etcd leases count whole seconds. */
class EtcdSemaphoreFaultIT extends SemaphoreFaultKit {

    private static EtcdProcess server;

    @BeforeAll
    static void startEtcd() throws Exception {
        server = EtcdProcess.start("etcd", Files.createTempDirectory("distlock-leader-etcd-"));
    }

    @AfterAll
    static void stopEtcd() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected BackendClients newClients() {
        return new BackendClients(List.of("etcd", server.clientUrl()), Duration.ofSeconds(2));
    }
}
