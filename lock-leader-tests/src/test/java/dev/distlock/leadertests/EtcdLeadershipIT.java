package dev.distlock.leadertests;

import dev.distlock.contract.servers.ManagedProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One etcd member on free ports; etcd leases count whole seconds. */
class EtcdLeadershipIT extends LeadershipKit {

    private static ManagedProcess server;

    @BeforeAll
    static void startEtcd() throws Exception {
        server = EtcdMember.start();
    }

    @AfterAll
    static void stopEtcd() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected BackendClients newClients() {
        return new BackendClients(EtcdMember.spec(server), Duration.ofSeconds(2));
    }
}
