package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiting call rides out etcd being unreachable for a while (a lost connection, a leader
 * election) as long as its wait lasts, and fails with the last error when the wait ends first.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdRideOutIT {

    /** Longer than the outages below plus a reconnect, so that no session lease ends meanwhile. */
    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(6));

    /** Short, so that a wait meets several requests that get no answer. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    private ExecutorService threads;

    @BeforeEach
    void startThreads() {
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void callStartedWhileEtcdIsSilentWaitsItOutAndGetsTheKey() throws Exception {
        String key = "silent-etcd";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                FaultProxy proxy = FaultProxy.to("127.0.0.1", etcd.member(0).port());
                LockRegistry holder = etcd.newRegistry(OPTIONS);
                Client waiterClient =
                        Client.builder().endpoints("http://" + proxy.address()).build();
                EtcdLockRegistry waiter = EtcdLockRegistry.builder(waiterClient)
                        .options(OPTIONS)
                        .requestTimeout(REQUEST_TIMEOUT)
                        .build()) {
            waiter.verify(Duration.ofSeconds(10));
            LockHandle held = holder.obtain(key).acquire();
            proxy.silence();
            Future<LockHandle> waiting = threads.submit(
                    () -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(30)).orElseThrow());
            // Several request timeouts long: each request in the outage gets no answer.
            Thread.sleep(REQUEST_TIMEOUT.multipliedBy(3).toMillis());
            assertThat(waiting).as("still waiting through the outage").isNotDone();
            proxy.restore();
            Thread.sleep(500);
            held.close();
            try (LockHandle taken = waiting.get(25, TimeUnit.SECONDS)) {
                assertThat(taken.token().isNewerThan(held.token())).isTrue();
            }
        }
    }

    @Test
    void callWhoseWaitEndsDuringTheOutageFailsWithTheLastErrorAtItsEnd() throws Exception {
        String key = "outage-outlasts-wait";
        Duration wait = REQUEST_TIMEOUT.multipliedBy(3);
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                FaultProxy proxy = FaultProxy.to("127.0.0.1", etcd.member(0).port());
                Client waiterClient =
                        Client.builder().endpoints("http://" + proxy.address()).build();
                EtcdLockRegistry waiter = EtcdLockRegistry.builder(waiterClient)
                        .options(OPTIONS)
                        .address("http://" + proxy.address())
                        .requestTimeout(REQUEST_TIMEOUT)
                        .build()) {
            waiter.verify(Duration.ofSeconds(10));
            proxy.silence();
            long start = System.nanoTime();
            assertThatThrownBy(() -> waiter.obtain(key).tryAcquire(wait))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining("http://" + proxy.address())
                    .hasMessageContaining("got no answer");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("tried again until the wait ended")
                    .isGreaterThanOrEqualTo(wait);
            proxy.restore();
        }
    }

    @Test
    void waiterRidesOutTheLossOfTheLeaderOfAThreeMemberCluster() throws Exception {
        String key = "leader-stops";
        try (EtcdCluster etcd = EtcdCluster.start(3, dir);
                LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry waiter = etcd.newRegistry(OPTIONS, REQUEST_TIMEOUT)) {
            LockHandle held = holder.obtain(key).acquire();
            Future<LockHandle> waiting = threads.submit(
                    () -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(30)).orElseThrow());
            Thread.sleep(300);
            etcd.member(etcd.leaderIndex()).kill();
            // Released while the survivors elect a leader: the waiter's wake-up and reads meet the election.
            // The release itself may fail then; its entry is deleted in the background.
            threads.submit(held::close);
            try (LockHandle taken = waiting.get(25, TimeUnit.SECONDS)) {
                assertThat(taken.token().isNewerThan(held.token())).isTrue();
            }
        }
    }
}
