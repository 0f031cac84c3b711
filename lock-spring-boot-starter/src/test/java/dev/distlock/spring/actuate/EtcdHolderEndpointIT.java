package dev.distlock.spring.actuate;

import dev.distlock.contract.servers.EtcdProcess;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.etcd.EtcdLockRegistry;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class EtcdHolderEndpointIT extends HolderEndpointContract {

    private static ManagedProcess etcd;
    private static String clientUrl;
    private static Client otherClient;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) throws Exception {
        EtcdProcess started = EtcdProcess.start("etcd-endpoint", dir);
        etcd = started.process();
        clientUrl = started.clientUrl();
        otherClient = Client.builder().endpoints(clientUrl).build();
    }

    @AfterAll
    static void stopEtcd() {
        if (otherClient != null) {
            otherClient.close();
        }
        if (etcd != null) {
            etcd.kill();
        }
    }

    @Override
    ApplicationContextRunner application(ApplicationContextRunner runner) {
        return runner.withPropertyValues(
                "distributed-lock.backend=etcd", "distributed-lock.etcd.endpoints=" + clientUrl);
    }

    @Override
    LockRegistry otherInstance() {
        return EtcdLockRegistry.builder(otherClient)
                .options(RegistryOptions.defaults().withApplicationName(OTHER_APPLICATION))
                .build();
    }
}
