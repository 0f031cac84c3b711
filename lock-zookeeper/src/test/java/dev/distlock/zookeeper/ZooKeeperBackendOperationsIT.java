package dev.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operator's view of the backend: who holds a key (recorded with the lock node by another
 * client), evicting that holder, confirming a hold, and checking the backend is usable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperBackendOperationsIT extends OneServerIT {

    private static final String HOLDER = "orders-app@host-7 pid 4242 thread worker-1";

    @Test
    void holderOfNamesWhatTheHoldingClientRecordedAndItsToken() throws Exception {
        ZooKeeperLockBackend holding = backend();
        ZooKeeperLockBackend operator = backend();
        String key = key();
        assertThat(operator.holderOf(key)).as("a key never locked").isEmpty();

        ZooKeeperLease lease = holding.tryAcquire(request(key, HOLDER)).orElseThrow();
        Optional<LockHolder> holder = operator.holderOf(key);
        assertThat(holder).contains(new LockHolder(key, HOLDER, lease.token(), Optional.empty()));

        assertThat(holding.release(lease)).isTrue();
        assertThat(operator.holderOf(key)).as("after the release").isEmpty();
    }

    @Test
    void holderOfNamesTheHolderNotAWaiterBehindIt() throws Exception {
        ZooKeeperLockBackend holding = backend();
        ZooKeeperLockBackend waiting = backend();
        String key = key();
        ZooKeeperLease lease = holding.tryAcquire(request(key, HOLDER)).orElseThrow();
        Future<Optional<ZooKeeperLease>> waiter =
                threads.submit(() -> waiting.tryAcquire(request(key, "waiter", Duration.ofSeconds(20))));
        Thread.sleep(200);
        assertThat(backend().holderOf(key).orElseThrow().holder()).isEqualTo(HOLDER);
        holding.release(lease);
        ZooKeeperLease next = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(backend().holderOf(key).orElseThrow())
                .isEqualTo(new LockHolder(key, "waiter", next.token(), Optional.empty()));
        waiting.release(next);
    }

    @Test
    void forceReleaseEvictsTheHolderOfAnotherClientAndTheNextHolderGetsALargerToken() throws Exception {
        ZooKeeperLockRegistry holder = registry();
        ZooKeeperLockRegistry waiter = registry();
        ZooKeeperLockBackend holderBackend = backend();
        String key = key();
        LockHandle held = holder.obtain(key).acquire();
        ZooKeeperLease evicted =
                holderBackend.tryAcquire(request(key("evicted"), HOLDER)).orElseThrow();
        Future<LockHandle> next = threads.submit(
                () -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(20)).orElseThrow());
        Thread.sleep(200);
        assertThat(next.isDone()).isFalse();

        ZooKeeperLockBackend operator = backend();
        assertThat(operator.forceRelease(key)).isTrue();
        LockHandle taken = next.get(20, TimeUnit.SECONDS);
        assertThat(taken.token().isNewerThan(held.token())).isTrue();
        assertThat(operator.holderOf(key).orElseThrow().token()).isEqualTo(taken.token());

        assertThat(operator.forceRelease(evicted.key())).isTrue();
        assertThat(holderBackend.renew(evicted, Duration.ofSeconds(1)))
                .as("the evicted holder's next confirmation finds its node gone")
                .isFalse();
        assertThat(operator.forceRelease(evicted.key()))
                .as("nothing left to evict")
                .isFalse();
        taken.close();
        held.close(); // the evicted hold's release must not touch anyone's node
        holder.close();
        waiter.close();
    }

    @Test
    void renewConfirmsALiveHoldOnItsSession() throws Exception {
        CuratorFramework client = clients.connect(server.getConnectString());
        ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client, new LockPaths("/distlock"));
        ZooKeeperLease lease = backend.tryAcquire(request(key(), HOLDER)).orElseThrow();
        assertThat(backend.renew(lease, Duration.ofSeconds(1))).isTrue();
        assertThat(backend.sessionLeaseTime())
                .isEqualTo(Duration.ofMillis(CuratorClients.SESSION_TIMEOUT_MS))
                .isEqualTo(Duration.ofMillis(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()));
        backend.release(lease);
        assertThat(backend.renew(lease, Duration.ofSeconds(1))).isFalse();
    }

    @Test
    void verifyPassesOnAServingEnsembleAndNamesTheConnectStringWhenThereIsNone() throws Exception {
        backend().verify(Duration.ofSeconds(1));

        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String nowhere = "127.0.0.1:" + closedPort;
        try (CuratorFramework unreachable = CuratorFrameworkFactory.newClient(nowhere, new RetryOneTime(100))) {
            unreachable.start();
            ZooKeeperLockBackend backend = new ZooKeeperLockBackend(unreachable, new LockPaths("/distlock"));
            assertThatThrownBy(() -> backend.verify(Duration.ofMillis(500)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(nowhere)
                    .hasMessageContaining("connect string");
        }
    }

    private static ZooKeeperLockBackend backend() {
        return new ZooKeeperLockBackend(clients.connect(server.getConnectString()), new LockPaths("/distlock"));
    }

    private static ZooKeeperLockRegistry registry() {
        return ZooKeeperLockRegistry.builder(clients.connect(server.getConnectString()))
                .build();
    }

    private static LockRequest request(String key, String holder) {
        return request(key, holder, Duration.ZERO);
    }

    private static LockRequest request(String key, String holder, Duration wait) {
        return new LockRequest(
                key, new OwnerId("test", 1, System.nanoTime()), Duration.ofSeconds(30), Deadline.after(wait), holder);
    }

    private static String key() {
        return key("op");
    }

    private static String key(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
