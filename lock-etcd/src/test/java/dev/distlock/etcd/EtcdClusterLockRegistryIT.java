package dev.distlock.etcd;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.LockRegistryContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against a 3-member etcd cluster on loopback ports; clients talk to all members. */
class EtcdClusterLockRegistryIT extends LockRegistryContract {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) {
        etcd = EtcdCluster.start(3, dir);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return etcd.newRegistry(options);
    }
}
