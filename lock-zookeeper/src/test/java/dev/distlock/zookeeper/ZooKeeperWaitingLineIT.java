package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.server.ServerMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter watches the nodes ahead of it and decides again as they go, without reading the
 * waiting line: these tests check that a node ahead that goes without having held the key (its
 * waiter gave up, or its session ended) never lets the waiter behind it in while the holder holds,
 * and that hand-overs to the waiters behind the holder cost the server no reads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperWaitingLineIT extends OneServerIT {

    private final List<ZooKeeperLockRegistry> registries = new ArrayList<>();
    private CuratorFramework observer;

    @AfterEach
    void closeRegistries() throws InterruptedException {
        stopThreads();
        registries.forEach(ZooKeeperLockRegistry::close);
        registries.clear();
    }

    @Test
    void waiterKeepsWaitingForTheHolderWhenTheWaiterAheadOfItGivesUp() throws Exception {
        String key = "gives-up-" + UUID.randomUUID();
        LockHandle held = registry("/distlock").obtain(key).acquire();
        ZooKeeperLockRegistry impatient = registry("/distlock");
        Future<Optional<LockHandle>> givesUp =
                threads.submit(() -> impatient.obtain(key).tryAcquire(Duration.ofMillis(700)));
        awaitLineLength("/distlock", key, 2);
        Future<LockHandle> behind = waitBehind(registry("/distlock"), key, 3);

        assertThat(givesUp.get(10, TimeUnit.SECONDS))
                .as("the waiter ahead gave up")
                .isEmpty();
        stillWaitsForTheHolderThenGetsTheKey(behind, held);
    }

    @Test
    void waiterKeepsWaitingForTheHolderWhenTheSessionOfTheWaiterAheadOfItEnds() throws Exception {
        String key = "session-ends-" + UUID.randomUUID();
        LockHandle held = registry("/distlock").obtain(key).acquire();
        CuratorFramework doomedClient = clients.connect(server.getConnectString());
        ZooKeeperLockRegistry doomed = register(ZooKeeperLockRegistry.builder(doomedClient)
                .rootPath("/distlock")
                .build());
        threads.submit(() -> doomed.obtain(key).tryAcquire(Duration.ofSeconds(30)));
        awaitLineLength("/distlock", key, 2);
        Future<LockHandle> behind = waitBehind(registry("/distlock"), key, 3);

        doomedClient.close(); // its session ends at once, and its node with it, as when its process dies
        awaitLineLength("/distlock", key, 2);
        stillWaitsForTheHolderThenGetsTheKey(behind, held);
    }

    /** {@code behind} keeps waiting while {@code held} is held, and gets the key with a newer token once it is released. */
    private static void stillWaitsForTheHolderThenGetsTheKey(Future<LockHandle> behind, LockHandle held)
            throws Exception {
        Thread.sleep(300);
        assertThat(behind.isDone())
                .as("the waiter behind it still waits for the holder")
                .isFalse();

        held.close();
        try (LockHandle next = behind.get(10, TimeUnit.SECONDS)) {
            assertThat(next.token().compareTo(held.token())).isPositive();
        }
    }

    @Test
    void handOversToTheTwoWaitersBehindTheHolderReadNothingFromTheServer() throws Exception {
        String root = "/line-" + UUID.randomUUID();
        String key = "hand-overs";
        LockHandle held = registry(root).obtain(key).acquire();
        int waiters = 2;
        List<Future<LockHandle>> line = new ArrayList<>();
        CountDownLatch allGranted = new CountDownLatch(waiters);
        for (int i = 0; i < waiters; i++) {
            line.add(waitBehind(registry(root), key, i + 2, allGranted));
        }
        Thread.sleep(200); // each waiter's watches are set just after its node appears

        long readsBefore = reads(root);
        held.close();
        assertThat(allGranted.await(10, TimeUnit.SECONDS)).isTrue();
        long reads = reads(root) - readsBefore;
        for (Future<LockHandle> waiter : line) {
            waiter.get(10, TimeUnit.SECONDS);
        }

        assertThat(reads)
                .as("each waiter was handed the key by the deletion of the node ahead, not by a read of the line")
                .isZero();
    }

    /** A waiter that queues as the {@code position}-th node (counting from 1) and keeps its hold. */
    private Future<LockHandle> waitBehind(ZooKeeperLockRegistry registry, String key, int position) throws Exception {
        Future<LockHandle> waiter = threads.submit(
                () -> registry.obtain(key).tryAcquire(Duration.ofSeconds(30)).orElseThrow());
        awaitLineLength(registry.rootPath(), key, position);
        return waiter;
    }

    /** A waiter that queues as the {@code position}-th node, counts down once granted and releases at once. */
    private Future<LockHandle> waitBehind(
            ZooKeeperLockRegistry registry, String key, int position, CountDownLatch granted) throws Exception {
        Future<LockHandle> waiter = threads.submit(() -> {
            try (LockHandle handle =
                    registry.obtain(key).tryAcquire(Duration.ofSeconds(30)).orElseThrow()) {
                granted.countDown();
                return handle;
            }
        });
        awaitLineLength(registry.rootPath(), key, position);
        return waiter;
    }

    private ZooKeeperLockRegistry registry(String root) {
        return register(ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                .rootPath(root)
                .build());
    }

    private ZooKeeperLockRegistry register(ZooKeeperLockRegistry registry) {
        registries.add(registry);
        return registry;
    }

    private void awaitLineLength(String root, String key, int length) throws Exception {
        if (observer == null) {
            observer = clients.connect(server.getConnectString());
        }
        String keyPath = root + "/" + LockPaths.encode(key);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (observer.checkExists().forPath(keyPath) == null
                || observer.getChildren().forPath(keyPath).size() != length) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the waiting line under " + keyPath + " never had " + length + " nodes");
            }
            Thread.sleep(5);
        }
    }

    /** Reads the server has answered under {@code root} so far (its per-namespace count). */
    private static long reads(String root) {
        String name = "cnt_" + root.substring(1) + "_read_per_namespace";
        AtomicLong reads = new AtomicLong();
        ServerMetrics.getMetrics().getMetricsProvider().dump((metric, value) -> {
            if (metric.equals(name)) {
                reads.set(((Number) value).longValue());
            }
        });
        return reads.get();
    }
}
