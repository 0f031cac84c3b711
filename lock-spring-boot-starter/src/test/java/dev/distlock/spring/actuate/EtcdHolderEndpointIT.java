package dev.distlock.spring.actuate;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.testing.FreePorts;
import dev.distlock.core.testing.ManagedProcess;
import dev.distlock.core.testing.RequiredServer;
import dev.distlock.etcd.EtcdLockRegistry;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
        Path executable = ManagedProcess.findExecutable("etcd").orElse(null);
        RequiredServer.require(
                executable != null,
                "etcd",
                "no etcd executable on the PATH or in /usr/bin (Debian package etcd-server)");
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        etcd = ManagedProcess.start(
                "etcd-endpoint",
                List.of(
                        executable.toString(),
                        "--name=n1",
                        "--data-dir=" + dir.resolve("n1.etcd"),
                        "--listen-client-urls=" + clientUrl,
                        "--advertise-client-urls=" + clientUrl,
                        "--listen-peer-urls=" + peerUrl,
                        "--initial-advertise-peer-urls=" + peerUrl,
                        "--initial-cluster=n1=" + peerUrl,
                        "--logger=zap",
                        "--log-outputs=stderr"),
                dir,
                clientPort,
                Duration.ofSeconds(20));
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
