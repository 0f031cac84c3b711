package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.testing.ServerStateKeys;
import dev.distlock.core.testing.ServerStateKeys.SemaphoreChurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Server-side state stays bounded: after 25,000 distinct keys (a million in the scale run) were locked and released once
 * each, or permits of 5,000 semaphore names acquired and released, nothing is left under the root
 * once the server's container sweep has run. Key nodes (and the root) are container nodes, which
 * the server deletes once their last child is gone;
 * the sweep runs every {@code znode.container.checkIntervalMs} (60 s by default) and deletes at
 * most {@code znode.container.maxPerMinute} (10,000 by default) per minute. Both are lowered
 * here so that the test sees the end state in seconds.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ZooKeeperServerStateIT {

    private static final int KEYS = ServerStateKeys.count(25_000);
    private static final int THREADS = 16;
    /** Clients (standing for JVMs) the threads spread over, so that one connection is not the bottleneck. */
    private static final int CLIENTS = 4;

    private static final String ROOT = "/bounded";
    private static final int SEMAPHORES = ServerStateKeys.semaphores(5_000);
    private static final String SEMAPHORE_ROOT = "/bounded-semaphores";

    private static TestingServer server;
    private static final CuratorClients clients = new CuratorClients();

    /** Server settings for this test only; the server reads them when it starts. */
    private static final Map<String, String> SERVER_PROPERTIES = Map.of(
            "znode.container.checkIntervalMs", "200",
            "znode.container.maxPerMinute", "6000000",
            // Durability on disk is not what this test is about; without it, the keys take seconds, not minutes.
            "zookeeper.forceSync", "no",
            // For the node count and data size in the report.
            "zookeeper.4lw.commands.whitelist", "mntr");

    private static final SystemProperties serverProperties = new SystemProperties();

    @BeforeAll
    static void startServer() throws Exception {
        serverProperties.set(SERVER_PROPERTIES);
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        clients.closeAll();
        server.close();
        serverProperties.restore();
    }

    @Test
    void nothingStaysOnTheServerAfterDistinctKeysWereLockedAndReleasedOnce() throws Exception {
        CuratorFramework observer = clients.connect(server.getConnectString());
        List<ZooKeeperLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            registries.add(ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                    .rootPath(ROOT)
                    .build());
        }
        String before = serverState();
        long start = System.nanoTime();
        AtomicLong highestToken = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                ZooKeeperLockRegistry registry = registries.get(t % CLIENTS);
                done.add(threads.submit(() -> {
                    for (int i = first; i < KEYS; i += THREADS) {
                        try (LockHandle handle = registry.obtain("order-" + i)
                                .tryAcquire(Duration.ofSeconds(10))
                                .orElseThrow()) {
                            highestToken.accumulateAndGet(handle.token().value(), Math::max);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            threads.shutdownNow();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (observer.checkExists().forPath(ROOT) != null && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertThat(keyNodes(observer, ROOT))
                .as("key nodes left under %s after the container sweep", ROOT)
                .isZero();
        assertThat(observer.getChildren().forPath("/"))
                .as("the root is a container too, removed once empty: nothing of the locks is left")
                .containsOnly("zookeeper");
        ServerStateKeys.report("ZooKeeper (1 server)", KEYS, took, before, serverState());

        try (LockHandle again = registries
                .get(0)
                .obtain("order-0")
                .tryAcquire(Duration.ofSeconds(10))
                .orElseThrow()) {
            assertThat(again.token().isNewerThan(FencingToken.of(highestToken.get())))
                    .as("the lock still works, with a larger token")
                    .isTrue();
        }
        registries.forEach(ZooKeeperLockRegistry::close);
    }

    @Test
    void nothingStaysOnTheServerAfterDistinctSemaphoresWereAcquiredAndReleasedOnce() throws Exception {
        CuratorFramework observer = clients.connect(server.getConnectString());
        List<ZooKeeperLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            registries.add(ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                    .rootPath(SEMAPHORE_ROOT)
                    .build());
        }
        String before = serverState();
        SemaphoreChurn churn = ServerStateKeys.churnSemaphores(registries, THREADS, SEMAPHORES, "export-");
        // Before the sweep, so that the test leaves no root behind for the next one.
        ServerStateKeys.assertSemaphoreStillWorks(registries, "export-0");

        // The same horizon as for the locks: each of a name's three keys is a container node.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (observer.checkExists().forPath(SEMAPHORE_ROOT) != null && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        ServerStateKeys.reportSemaphores("ZooKeeper (1 server)", churn, before, serverState());
        assertThat(keyNodes(observer, SEMAPHORE_ROOT))
                .as(
                        "key nodes left under %s after %d semaphores and the container sweep",
                        SEMAPHORE_ROOT, churn.names())
                .isZero();
        assertThat(observer.getChildren().forPath("/"))
                .as("the root is a container too, removed once empty")
                .doesNotContain(SEMAPHORE_ROOT.substring(1));
        registries.forEach(ZooKeeperLockRegistry::close);
    }

    /** The server's node count and approximate data size, from its {@code mntr} command. */
    private static String serverState() throws Exception {
        String mntr;
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("mntr".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            mntr = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
        return mntrValue(mntr, "zk_znode_count") + " nodes (the server's own included), "
                + ServerStateKeys.bytes(mntrValue(mntr, "zk_approximate_data_size")) + " of data";
    }

    private static long mntrValue(String mntr, String name) {
        java.util.regex.Matcher value =
                java.util.regex.Pattern.compile(name + "\\s+(\\d+)").matcher(mntr);
        assertThat(value.find()).as("%s in mntr output: %s", name, mntr).isTrue();
        return Long.parseLong(value.group(1));
    }

    private static int keyNodes(CuratorFramework observer, String root) throws Exception {
        try {
            return observer.getChildren().forPath(root).size();
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
    }
}
