package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waits end on time against a server that has gone silent (black-holed, not refused): the
 * client is still "connected" for a while, so only the backend's own bound on every call ends
 * the wait, at most the contract's 250 ms past the wait time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSilentServerIT {

    private static final Duration WAIT = Duration.ofSeconds(1);
    /** The contract's bound on how far past its wait time any call may end, against a server that was quick. */
    private static final Duration CONTRACT_SLACK = RegistryOptions.DEFAULT_ANSWER_BUDGET;
    /**
     * Thread scheduling on a busy machine, on top of the backend's documented overrun: the margin of the {@link
     * TimingBound}s, so an overrun while this JVM stalled longer is measured again, behind a proxy silenced afresh.
     */
    private static final Duration SCHEDULING = Duration.ofMillis(250);

    private final CuratorClients clients = new CuratorClients();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestingServer server;
    private FaultProxy proxy;
    private ZooKeeperLockBackend partitionedBackend;
    private LockRegistry partitioned;
    private LockRegistry healthy;
    private int measurements;

    @BeforeEach
    void setUp() throws Exception {
        server = new TestingServer(true);
        healthy = ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                .build();
        connectThroughANewProxy();
    }

    /** A proxy of its own and a registry connected through it, warm: what each measurement silences. */
    private void connectThroughANewProxy() throws Exception {
        proxy = FaultProxy.to("127.0.0.1", server.getPort());
        partitionedBackend = new ZooKeeperLockBackend(clients.connect(proxy.address()), new LockPaths("/distlock"));
        partitioned = new ZooKeeperLockRegistry(partitionedBackend, RegistryOptions.defaults());
        // One round trip through the proxy, so the client is known to be connected and warm.
        partitioned
                .obtain(key())
                .tryAcquire(Duration.ofSeconds(5))
                .orElseThrow()
                .close();
    }

    /** The silenced proxy and its registry replaced by new ones, from the second measurement on. */
    private void afresh() throws Exception {
        if (measurements++ > 0) {
            partitioned.close();
            proxy.close();
            connectThroughANewProxy();
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        partitioned.close();
        healthy.close();
        clients.closeAll();
        proxy.close();
        server.close();
    }

    @Test
    void anAttemptStartedWhileTheServerIsSilentEndsWithinItsWaitTimePlusTheContractSlack() throws Exception {
        TimingBound.of(
                        "ZooKeeperSilentServerIT.anAttemptStartedWhileTheServerIsSilentEndsWithinItsWaitTime",
                        SCHEDULING)
                .check(() -> {
                    afresh();
                    Duration bound = bound();
                    proxy.silence();
                    Outcome outcome = tryFor(partitioned, key());
                    assertThat(outcome.failure()).isInstanceOf(LockBackendException.class);
                    return new Timed(outcome.took(), bound);
                });
    }

    @Test
    void aWaiterQueuedBeforeTheServerFellSilentEndsWithinItsWaitTimePlusTheContractSlack() throws Exception {
        TimingBound.of(
                        "ZooKeeperSilentServerIT.aWaiterQueuedBeforeTheServerFellSilentEndsWithinItsWaitTime",
                        SCHEDULING)
                .check(() -> {
                    afresh();
                    String key = key();
                    try (LockHandle held = healthy.obtain(key).acquire()) {
                        Future<Outcome> waiter = threads.submit(() -> tryFor(partitioned, key));
                        Thread.sleep(300); // the waiter has created its node and watches the holder's
                        proxy.silence();
                        Outcome outcome = waiter.get(30, TimeUnit.SECONDS);
                        assertThat(outcome.acquired())
                                .as("the holder still holds")
                                .isFalse();
                        assertThat(held.isValid()).isTrue();
                        return new Timed(
                                outcome.took(), WAIT.plus(CONTRACT_SLACK).plus(SCHEDULING));
                    }
                });
    }

    /** Wait time, plus the answer budget, plus thread scheduling. */
    private Duration bound() {
        return WAIT.plus(partitionedBackend.overrun()).plus(SCHEDULING);
    }

    private static Outcome tryFor(LockRegistry registry, String key) throws InterruptedException {
        long start = System.nanoTime();
        try {
            Optional<LockHandle> handle = registry.obtain(key).tryAcquire(WAIT);
            handle.ifPresent(LockHandle::close);
            return new Outcome(handle.isPresent(), null, Duration.ofNanos(System.nanoTime() - start));
        } catch (LockBackendException e) {
            return new Outcome(false, e, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    private static String key() {
        return "silent-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private record Outcome(boolean acquired, LockBackendException failure, Duration took) {}
}
