package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.FaultProxies;
import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The contract on curator-test's in-process ZooKeeper server, plus what is particular to this backend. */
class ZooKeeperLockRegistryIT extends ZooKeeperContract {

    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        // Empty container nodes are swept every minute by default; sooner here, so a test can see it.
        System.setProperty("znode.container.checkIntervalMs", "200");
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        clients.closeAll();
        server.close();
    }

    /** A client of its own, through a proxy to the test server. */
    @Override
    protected LockRegistry createRegistryThrough(FaultProxies proxies, RegistryOptions options) {
        FaultProxy proxy = proxies.to("127.0.0.1", server.getPort());
        return ZooKeeperLockRegistry.builder(clients.connect("127.0.0.1:" + proxy.port()))
                .options(options)
                .build();
    }

    @Override
    String connectString() {
        return server.getConnectString();
    }

    @Test
    void tokenIsTheCzxidOfTheOwnersNode() throws Exception {
        CuratorFramework observer = clients.connect(server.getConnectString());
        String key = key();
        try (LockHandle handle = registryA.obtain(key).acquire()) {
            String keyPath = "/distlock/" + LockPaths.encode(key);
            List<String> nodes = observer.getChildren().forPath(keyPath);
            assertThat(nodes).hasSize(1);
            Stat stat = observer.checkExists().forPath(keyPath + "/" + nodes.get(0));
            assertThat(handle.token().value()).isEqualTo(stat.getCzxid());
            assertThat(stat.getEphemeralOwner()).isNotZero();
        }
    }

    @Test
    void keysWithPathCharactersStayOneNodeUnderTheRoot() throws Exception {
        CuratorFramework client = clients.connect(server.getConnectString());
        String rootPath = "/escape-" + System.nanoTime();
        LockRegistry registry =
                ZooKeeperLockRegistry.builder(client).rootPath(rootPath).build();
        List<LockHandle> handles = new ArrayList<>();
        try {
            for (String key : List.of("../../zookeeper", "/", "a/b", ".", "..", "\u0000", "zookeeper", "é/..")) {
                handles.add(
                        registry.obtain(key).tryAcquire(Duration.ofSeconds(5)).orElseThrow());
            }
            List<String> keyNodes = client.getChildren().forPath(rootPath);
            assertThat(keyNodes).hasSize(8).allSatisfy(name -> assertThat(name).doesNotContain("/", "."));
            assertThat(client.getChildren().forPath("/zookeeper")).doesNotContain("distlock", "zookeeper");
            assertThat(handles).allMatch(LockHandle::isValid);
        } finally {
            handles.forEach(LockHandle::close);
            registry.close();
        }
    }

    @Test
    void usesTheApplicationsNamespaceAndAclsAndLeavesTheClientOpen() throws Exception {
        ACLProvider creatorOnly = new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }
        };
        CuratorFramework app = clients.connect(CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace("orders-app")
                .aclProvider(creatorOnly)
                .authorization("digest", "orders:secret".getBytes(StandardCharsets.UTF_8)));
        ZooKeeperLockRegistry registry =
                ZooKeeperLockRegistry.builder(app).rootPath("/locks").build();
        String key = key();
        try (LockHandle handle = registry.obtain(key).acquire()) {
            String keyPath = "/locks/" + LockPaths.encode(key);
            List<String> nodes = app.getChildren().forPath(keyPath);
            assertThat(nodes).hasSize(1);
            List<ACL> acl = app.getACL().forPath(keyPath + "/" + nodes.get(0));
            assertThat(acl)
                    .singleElement()
                    .satisfies(entry -> assertThat(entry.getId().getScheme()).isEqualTo("digest"));
            CuratorFramework stranger = clients.connect(server.getConnectString());
            assertThatThrownBy(() -> stranger.getChildren().forPath("/orders-app" + keyPath))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(registry.toString()).contains("/orders-app/locks");
        }
        registry.close();
        assertThat(app.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        assertThat(app.checkExists().forPath("/locks")).isNotNull();
    }

    @Test
    void unstartedClientIsRefusedWithAnExplanation() {
        CuratorFramework unstarted = CuratorFrameworkFactory.newClient(
                server.getConnectString(), new org.apache.curator.retry.RetryOneTime(100));
        try {
            assertThatThrownBy(() -> ZooKeeperLockRegistry.builder(unstarted).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("start it");
        } finally {
            unstarted.close();
        }
    }

    @Test
    void invalidRootPathsAreRejected() {
        CuratorFramework client = clients.connect(server.getConnectString());
        assertThatThrownBy(() ->
                        ZooKeeperLockRegistry.builder(client).rootPath("/").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("root path");
        assertThatThrownBy(() -> ZooKeeperLockRegistry.builder(client)
                        .rootPath("no-slash")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-slash");
        assertThatThrownBy(() ->
                        ZooKeeperLockRegistry.builder(client).rootPath("/a//b").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ZooKeeperLockRegistry.builder(client)
                        .rootPath("/locks/")
                        .build()
                        .rootPath())
                .isEqualTo("/locks");
    }

    @Test
    void idleKeyNodesAreRemovedByTheServer() throws Exception {
        CuratorFramework observer = clients.connect(server.getConnectString());
        String key = key();
        registryA.obtain(key).acquire().close();
        registryB.obtain(key).tryAcquire(Duration.ofSeconds(5)).orElseThrow().close();
        String keyPath = "/distlock/" + LockPaths.encode(key);
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (observer.checkExists().forPath(keyPath) != null && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertThat(observer.checkExists().forPath(keyPath))
                .as("the key node is a container, which the server deletes once it is empty")
                .isNull();
    }
}
