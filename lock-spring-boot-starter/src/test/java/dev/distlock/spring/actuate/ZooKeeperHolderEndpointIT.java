package dev.distlock.spring.actuate;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ZooKeeperHolderEndpointIT extends HolderEndpointContract {

    private static TestingServer server;
    private static CuratorFramework otherClient;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        otherClient = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        otherClient.start();
    }

    @AfterAll
    static void stop() throws Exception {
        otherClient.close();
        server.close();
    }

    @Override
    ApplicationContextRunner application(ApplicationContextRunner runner) {
        return runner.withPropertyValues(
                "distributed-lock.backend=zookeeper",
                "distributed-lock.zookeeper.connect-string=" + server.getConnectString());
    }

    @Override
    LockRegistry otherInstance() {
        return ZooKeeperLockRegistry.builder(otherClient)
                .options(RegistryOptions.defaults().withApplicationName(OTHER_APPLICATION))
                .build();
    }
}
