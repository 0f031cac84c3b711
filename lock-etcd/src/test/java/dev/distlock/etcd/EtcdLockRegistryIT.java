package dev.distlock.etcd;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against one etcd process; each registry has its own jetcd client, as separate JVMs would. */
class EtcdLockRegistryIT extends LockRegistryContract {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) throws InterruptedException {
        etcd = EtcdCluster.start(1, dir);
        // The JVM's first lock call loads jetcd's request classes, which on a busy machine takes longer
        // than the contract's zero-wait slack; whichever contract test runs first must not pay for it.
        try (LockRegistry warmUp = etcd.newRegistry(RegistryOptions.defaults())) {
            warmUp.obtain("warm-up")
                    .tryAcquire(Duration.ofSeconds(10))
                    .orElseThrow()
                    .close();
        }
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

    @Override
    protected LockRegistry createRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        return etcd.newRegistryThrough(proxies, options);
    }
}
