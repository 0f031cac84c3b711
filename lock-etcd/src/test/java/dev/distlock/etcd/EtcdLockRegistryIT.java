package dev.distlock.etcd;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.contract.LockRegistryContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against one etcd process; each registry has its own jetcd client, as separate JVMs would. */
class EtcdLockRegistryIT extends LockRegistryContract {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) {
        etcd = EtcdCluster.start(1, dir);
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
