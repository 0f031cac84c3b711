package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.ReadWriteLockContract;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read/write lock contract on curator-test's in-process ZooKeeper server, each registry over
 * its own Curator client (its own session, standing for its own JVM), plus what can go wrong on
 * this backend in particular: wake-ups by watch rather than by a session's end or a writer's
 * grace, readers whose session ended, and nodes left on the server.
 */
class ZooKeeperReadWriteLockIT extends ReadWriteLockContract {

    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    /**
     * The margin of the wake-up bounds' {@link TimingBound}s: zero, as those bounds name no allowance for a busy
     * machine. An overrun while this JVM stalled at all is measured again, on new registries and a new key.
     */
    private static final Duration NO_MARGIN = Duration.ZERO;

    /** Server settings for this class: the container sweep runs often and unthrottled, so tests see its end state. */
    private static final Map<String, String> SERVER_PROPERTIES =
            Map.of("znode.container.checkIntervalMs", "200", "znode.container.maxPerMinute", "6000000");

    private static final CuratorClients clients = new CuratorClients();
    private static TestingServer server;

    /** Registries a test built over clients of its own; closed after it, before the kit's. */
    private final List<LockRegistry> ownRegistries = new ArrayList<>();

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

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                .options(options)
                .build();
    }

    /** Runs after the kit's set-up: the clients of the previous test, whose registries the kit closed, go now. */
    @BeforeEach
    void closePreviousClients() {
        clients.closeRetired();
    }

    @AfterEach
    void closeOwnRegistriesAndRetireClients() {
        ownRegistries.forEach(LockRegistry::close);
        ownRegistries.clear();
        clients.retireAll();
    }

    // --- Layout and tokens ---------------------------------------------------------------

    @Test
    void readWriteNodesQueueBesideThePlainLocksNodeAndCarryTheirCzxid() throws Exception {
        CuratorFramework observer = clients.connect(server.getConnectString());
        String key = "layout-" + UUID.randomUUID();
        String plainPath = ZooKeeperLockRegistry.DEFAULT_ROOT_PATH + "/" + LockPaths.encode(key);
        String readWritePath = plainPath + ":rw";
        FencedReadWriteLock lock = registryA.readWriteLock(key);
        try (LockHandle plain = registryB.obtain(key).acquire();
                LockHandle write = lock.writeLock().acquire()) {
            assertThat(observer.getChildren().forPath(plainPath))
                    .singleElement()
                    .satisfies(node -> assertThat(node).contains("lock-"));
            List<String> rw = observer.getChildren().forPath(readWritePath);
            assertThat(rw).singleElement().satisfies(node -> assertThat(node).contains("write-"));
            Stat writeNode = observer.checkExists().forPath(readWritePath + "/" + rw.get(0));
            assertThat(write.token().value()).isEqualTo(writeNode.getCzxid());
            assertThat(plain.token()).isNotEqualTo(write.token());

            try (LockHandle downgrade = lock.readLock().acquire()) {
                assertThat(observer.getChildren().forPath(readWritePath))
                        .hasSize(2)
                        .anySatisfy(node -> assertThat(node).contains("downgrade-"));
                assertThat(downgrade.token())
                        .as("a downgrade reads in the epoch of the write it comes from")
                        .isEqualTo(write.token());
            }
        }
        try (LockHandle read = registryB.readWriteLock(key).readLock().acquire()) {
            List<String> rw = observer.getChildren().forPath(readWritePath);
            assertThat(rw).singleElement().satisfies(node -> assertThat(node).contains("read-"));
            Stat readNode = observer.checkExists().forPath(readWritePath + "/" + rw.get(0));
            assertThat(read.token().value()).isEqualTo(readNode.getCzxid());
        }
    }

    // --- Waking --------------------------------------------------------------------------

    @Test
    void waitingWriterIsWokenByTheLastReadersReleaseLongBeforeTheReadersSessionCouldEnd() throws Exception {
        TimingBound.of("ZooKeeperReadWriteLockIT.waitingWriterIsWokenByTheLastReadersRelease", NO_MARGIN)
                .check(() -> {
                    String key = "wake-" + UUID.randomUUID();
                    // Readers on a session that would take 20 s to end: a writer freed only by that would show.
                    CuratorFramework readersClient = clients.connect(CuratorFrameworkFactory.builder()
                            .connectString(server.getConnectString())
                            .sessionTimeoutMs(20_000));
                    LockRegistry readers = ownRegistry(readersClient);
                    LockRegistry writers = newRegistry();
                    LockRegistry others = newRegistry();
                    Duration sessionTimeout =
                            Duration.ofMillis(readersClient.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
                    LockHandle first = readers.readWriteLock(key).readLock().acquire();
                    LockHandle second = inThread(
                                    () -> readers.readWriteLock(key).readLock().acquire())
                            .get(10, TimeUnit.SECONDS);
                    Future<Long> writer = inThread(() -> {
                        try (LockHandle handle = writers.readWriteLock(key)
                                .writeLock()
                                .tryAcquire(LONG_WAIT)
                                .orElseThrow()) {
                            return System.nanoTime();
                        }
                    });
                    awaitTrue(
                            () -> tryRead(others, key).isEmpty(),
                            Duration.ofSeconds(10),
                            "the waiting writer holds new readers back");
                    first.close();
                    Thread.sleep(300);
                    assertThat(writer.isDone())
                            .as("one reader still holds the key")
                            .isFalse();

                    long releasedAt = System.nanoTime();
                    inThread(() -> {
                                second.close();
                                return null;
                            })
                            .get(10, TimeUnit.SECONDS);
                    Duration writerWaited = Duration.ofNanos(writer.get(90, TimeUnit.SECONDS) - releasedAt);
                    // the writer was woken by the release, not by the end of the readers' session
                    return new Timed(writerWaited, sessionTimeout.dividedBy(4));
                });
    }

    @Test
    void writerInItsGraceIsWokenByTheLastReadersReleaseNotAtTheGracesEnd() throws Exception {
        Duration grace = Duration.ofSeconds(30);
        TimingBound.of("ZooKeeperReadWriteLockIT.writerInItsGraceIsWokenByTheLastReadersRelease", NO_MARGIN)
                .check(() -> {
                    String key = "grace-wake-" + UUID.randomUUID();
                    LockRegistry patient =
                            newRegistry(RegistryOptions.defaults().withWriterGrace(grace));
                    LockRegistry readers = newRegistry();
                    LockRegistry others = newRegistry();
                    LockHandle reader = readers.readWriteLock(key).readLock().acquire();
                    Future<Long> writer = inThread(() -> {
                        try (LockHandle handle = patient.readWriteLock(key)
                                .writeLock()
                                .tryAcquire(LONG_WAIT)
                                .orElseThrow()) {
                            return System.nanoTime();
                        }
                    });
                    Thread.sleep(200);
                    assertThat(writer.isDone())
                            .as("the reader excludes the writer")
                            .isFalse();
                    // A reader that comes and goes in the grace: the writer, which watches the line, must look again
                    // and go on.
                    assertThat(tryRead(others, key))
                            .as("the writer is in its grace: a new reader gets in")
                            .isPresent();
                    Thread.sleep(200);
                    assertThat(writer.isDone())
                            .as("the first reader still holds the key")
                            .isFalse();

                    long releasedAt = System.nanoTime();
                    reader.close();
                    Duration writerWaited = Duration.ofNanos(writer.get(90, TimeUnit.SECONDS) - releasedAt);
                    // woken by the release, not by the end of its grace
                    return new Timed(writerWaited, timingSlack().multipliedBy(2));
                });
    }

    // --- Readers whose session ended -----------------------------------------------------

    @Test
    void readerWhoseSessionExpiredNoLongerBlocksWriters() throws Exception {
        String key = "expired-" + UUID.randomUUID();
        CuratorFramework readerClient = clients.connect(server.getConnectString());
        LockRegistry reader = ownRegistry(readerClient);
        LockHandle read = reader.readWriteLock(key).readLock().acquire();
        Future<Optional<LockHandle>> writer =
                inThread(() -> registryB.readWriteLock(key).writeLock().tryAcquire(LONG_WAIT));
        Thread.sleep(300);
        assertThat(writer.isDone()).as("the live reader excludes the writer").isFalse();

        expireSession(readerClient);
        Optional<LockHandle> granted = writer.get(90, TimeUnit.SECONDS);
        assertThat(granted)
                .as("the writer got in once the reader's session ended")
                .isPresent();
        awaitTrue(() -> !read.isValid(), Duration.ofSeconds(10), "the expired reader's handle turns invalid");
        granted.get().close();
        read.close();
    }

    @Test
    void readerWhoseClientClosedWithoutReleasingNoLongerBlocksWriters() throws Exception {
        TimingBound.of(
                        "ZooKeeperReadWriteLockIT.readerWhoseClientClosedWithoutReleasingNoLongerBlocksWriters",
                        NO_MARGIN)
                .check(() -> {
                    String key = "closed-" + UUID.randomUUID();
                    // A client of its own, not from the shared pool, since the test closes it under the registry.
                    CuratorFramework readerClient = CuratorFrameworkFactory.newClient(
                            server.getConnectString(), CuratorClients.SESSION_TIMEOUT_MS, 2000, new RetryNTimes(0, 0));
                    readerClient.start();
                    assertThat(readerClient.blockUntilConnected(20, TimeUnit.SECONDS))
                            .isTrue();
                    LockRegistry reader = ownRegistry(readerClient);
                    LockRegistry writers = newRegistry();
                    reader.readWriteLock(key).readLock().acquire();
                    Future<Optional<LockHandle>> writer = inThread(
                            () -> writers.readWriteLock(key).writeLock().tryAcquire(LONG_WAIT));
                    Thread.sleep(300);
                    assertThat(writer.isDone())
                            .as("the live reader excludes the writer")
                            .isFalse();

                    long closedAt = System.nanoTime();
                    readerClient.close(); // the process ends: its session is closed, never released by the registry
                    Optional<LockHandle> granted = writer.get(90, TimeUnit.SECONDS);
                    // a closed session frees its nodes at once, not after its timeout
                    Timed timed = Timed.since(closedAt, Duration.ofMillis(CuratorClients.SESSION_TIMEOUT_MS));
                    assertThat(granted).isPresent();
                    granted.get().close();
                    return timed;
                });
    }

    // --- Server state --------------------------------------------------------------------

    @Test
    void nothingStaysOnTheServerAfterAThousandKeysWereReadAndWriteLockedAndReleased() throws Exception {
        String root = "/rw-bounded-" + UUID.randomUUID().toString().substring(0, 8);
        CuratorFramework observer = clients.connect(server.getConnectString());
        LockRegistry a = ownRegistry(clients.connect(server.getConnectString()), root);
        LockRegistry b = ownRegistry(clients.connect(server.getConnectString()), root);
        int keys = 1000;
        int threads = 4;
        List<Future<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int firstKey = t;
            workers.add(inThread(() -> {
                for (int i = firstKey; i < keys; i += threads) {
                    String key = "order-" + i;
                    try (LockHandle read = a.readWriteLock(key).readLock().acquire()) {
                        // A writer that gives up at once must take its node away again.
                        assertThat(b.readWriteLock(key).writeLock().tryAcquire(Duration.ZERO))
                                .isEmpty();
                        assertThat(read.isValid()).isTrue();
                    }
                    FencedReadWriteLock lock = b.readWriteLock(key);
                    try (LockHandle write = lock.writeLock().acquire();
                            LockHandle downgrade = lock.readLock().acquire()) {
                        assertThat(downgrade.token()).isEqualTo(write.token());
                    }
                }
                return null;
            }));
        }
        for (Future<Void> worker : workers) {
            worker.get(5, TimeUnit.MINUTES);
        }

        assertThat(nodesUnder(observer, root))
                .as("only the key nodes, which are containers, are left right after the releases")
                .isLessThanOrEqualTo(keys);
        awaitTrue(
                () -> nodesUnder(observer, root) == 0 && exists(observer, root) == null,
                Duration.ofSeconds(60),
                "the container sweep removed every key node and the root " + root);
    }

    // --- Helpers -------------------------------------------------------------------------

    private LockRegistry ownRegistry(CuratorFramework client) {
        return ownRegistry(client, ZooKeeperLockRegistry.DEFAULT_ROOT_PATH);
    }

    private LockRegistry ownRegistry(CuratorFramework client, String rootPath) {
        LockRegistry registry =
                ZooKeeperLockRegistry.builder(client).rootPath(rootPath).build();
        ownRegistries.add(registry);
        return registry;
    }

    private static Optional<LockHandle> tryRead(LockRegistry registry, String key) {
        try {
            Optional<LockHandle> handle = registry.readWriteLock(key).readLock().tryAcquire(Duration.ZERO);
            handle.ifPresent(LockHandle::close);
            return handle;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every node below {@code path}, at any depth; 0 when it does not exist. */
    private static int nodesUnder(CuratorFramework observer, String path) {
        try {
            int count = 0;
            for (String child : observer.getChildren().forPath(path)) {
                count += 1 + nodesUnder(observer, path + "/" + child);
            }
            return count;
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Stat exists(CuratorFramework observer, String path) {
        try {
            return observer.checkExists().forPath(path);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ends the session on the server, as its timeout would: a second handle takes it over and closes it. */
    private static void expireSession(CuratorFramework client) throws Exception {
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(
                server.getConnectString(),
                CuratorClients.SESSION_TIMEOUT_MS,
                event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                },
                zooKeeper.getSessionId(),
                zooKeeper.getSessionPasswd());
        try {
            assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            twin.close();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("Not within " + within + ": " + what);
            }
            Thread.sleep(25);
        }
    }
}
