package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The {@link CuratorFramework} the starter built, closed at shutdown only after the registries over it ended their
 * lingering minimum holds (see {@code docs/internals/starter.md}).
 */
final class OwnedCuratorClient implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(OwnedCuratorClient.class);

    /** The longest the background closer waits for a registry, far beyond any sensible minimum hold. */
    private static final Duration BACKGROUND_BOUND = Duration.ofDays(1);

    private final CuratorFramework client;
    private final Duration lingerLimit;
    private final List<ZooKeeperLockRegistry> registries = new CopyOnWriteArrayList<>();

    OwnedCuratorClient(CuratorFramework client, Duration lingerLimit) {
        this.client = client;
        this.lingerLimit = lingerLimit;
    }

    CuratorFramework client() {
        return client;
    }

    /** Closes the client only after {@code registry} closed and its lingering minimum holds ended. */
    void closeAfter(ZooKeeperLockRegistry registry) {
        registries.add(registry);
    }

    @Override
    public void destroy() {
        // Closing is idempotent, so whichever of the registry and this bean is destroyed first, the registry's holds
        // end (and its lingering ones start their last stretch) before the wait.
        registries.forEach(LockRegistry::close);
        if (allClosedWithin(lingerLimit)) {
            client.close();
            return;
        }
        log.warn(
                "ZooKeeper lock holds of this instance still keep their minimum hold after"
                        + " distributed-lock.zookeeper.shutdown-linger-limit ({}); the Curator client stays open so"
                        + " that they keep their keys, and closes when they end. If the JVM exits first, ZooKeeper"
                        + " frees them when the session times out.",
                lingerLimit);
        Thread closer = new Thread(
                () -> {
                    allClosedWithin(BACKGROUND_BOUND);
                    client.close();
                },
                "distlock-zookeeper-client-closing");
        closer.setDaemon(true);
        closer.start();
    }

    private boolean allClosedWithin(Duration bound) {
        long end = System.nanoTime() + bound.toNanos();
        try {
            for (ZooKeeperLockRegistry registry : registries) {
                if (!registry.awaitClosed(Duration.ofNanos(Math.max(0, end - System.nanoTime())))) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
