package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.zookeeper.ZooKeeperLockRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A rolling restart on ZooKeeper: the instance releases a hold before its minimum ended and its
 * context closes. The Curator client the starter built must outlive the minimum, or closing it
 * ends the session and frees the key at once.
 */
class ZooKeeperShutdownLingerIT {

    private static final Duration MINIMUM = Duration.ofSeconds(3);
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private static TestingServer server;
    private static CuratorFramework otherClient;
    private static LockRegistry otherInstance;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        otherClient = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        otherClient.start();
        otherInstance = ZooKeeperLockRegistry.builder(otherClient).build();
    }

    @AfterAll
    static void stop() throws Exception {
        otherInstance.close();
        otherClient.close();
        server.close();
    }

    private ApplicationContextRunner instance(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "distributed-lock.backend=zookeeper",
                        "distributed-lock.zookeeper.connect-string=" + server.getConnectString())
                .withPropertyValues(properties);
    }

    @Test
    void lingeringMinimumHoldKeepsTheKeyAfterTheContextClosesAndTheClientClosesAfterIt() throws Exception {
        String key = "linger-" + UUID.randomUUID();
        AtomicLong acquiredAt = new AtomicLong();
        AtomicReference<CuratorFramework> client = new AtomicReference<>();
        instance().run(context -> {
            client.set(context.getBean(CuratorFramework.class));
            acquiredAt.set(holdAtLeastThenRelease(context.getBean(LockRegistry.class), key));
        });

        long freeAfter = nanosUntilTheOtherInstanceGets(key);

        assertThat(Duration.ofNanos(freeAfter - acquiredAt.get()))
                .as("the key stays held until the minimum ends, although the context closed")
                .isGreaterThanOrEqualTo(MINIMUM);
        assertThat(client.get().getState())
                .as("the context's close waited for the minimum, then closed the client it built")
                .isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Test
    void minimumLongerThanTheLingerLimitKeepsTheClientOpenUntilItEnds() throws Exception {
        String key = "linger-limit-" + UUID.randomUUID();
        AtomicLong acquiredAt = new AtomicLong();
        AtomicReference<CuratorFramework> client = new AtomicReference<>();
        instance("distributed-lock.zookeeper.shutdown-linger-limit=0s").run(context -> {
            client.set(context.getBean(CuratorFramework.class));
            acquiredAt.set(holdAtLeastThenRelease(context.getBean(LockRegistry.class), key));
        });

        long freeAfter = nanosUntilTheOtherInstanceGets(key);

        assertThat(Duration.ofNanos(freeAfter - acquiredAt.get()))
                .as("the client stays open past the limit, so the session keeps the key until the minimum ends")
                .isGreaterThanOrEqualTo(MINIMUM);
        long stopBy = System.nanoTime() + LONG_WAIT.toNanos();
        while (client.get().getState() != CuratorFrameworkState.STOPPED && System.nanoTime() < stopBy) {
            Thread.sleep(50);
        }
        assertThat(client.get().getState())
                .as("the client is closed in the background once the minimum ended")
                .isEqualTo(CuratorFrameworkState.STOPPED);
    }

    /** Takes {@code key}, keeps it for {@link #MINIMUM}, releases it at once; returns when the acquisition began. */
    private static long holdAtLeastThenRelease(LockRegistry registry, String key) throws InterruptedException {
        long start = System.nanoTime();
        LockHandle handle = registry.obtain(key).tryAcquire(LONG_WAIT).orElseThrow();
        handle.holdAtLeast(MINIMUM);
        handle.close();
        return start;
    }

    private static long nanosUntilTheOtherInstanceGets(String key) throws InterruptedException {
        Optional<LockHandle> other = otherInstance.obtain(key).tryAcquire(LONG_WAIT);
        long at = System.nanoTime();
        assertThat(other)
                .as("the other instance gets the key once the minimum ended")
                .isPresent();
        other.get().close();
        return at;
    }
}
