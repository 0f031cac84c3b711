package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What happens to locks when etcd or the way to it fails; each test starts its own etcd. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdFaultIT {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration SLACK = Duration.ofMillis(1000);

    /**
     * The margin of a bound that is only the contract's promise (a wait plus the answer budget, one second by
     * default): an overrun while this JVM stalled at all is measured again, on an etcd started afresh.
     */
    private static final Duration NO_MARGIN = Duration.ZERO;

    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(LEASE);

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

    /**
     * The bound is three leases, which cover etcd's expiry of the cut-off holder's lease and the hand-over, plus the
     * slack for a busy machine: the margin of its {@link TimingBound}.
     */
    @Test
    void holderCutOffFromEtcdLosesTheKeyToAWaiterWithALargerToken() throws Exception {
        String key = "cut-off";
        TimingBound.of("EtcdFaultIT.holderCutOffFromEtcdLosesTheKeyToAWaiterWithALargerToken", SLACK)
                .check(() -> {
                    try (EtcdCluster etcd = EtcdCluster.start(1, fresh());
                            FaultProxy proxy =
                                    FaultProxy.to("127.0.0.1", etcd.member(0).port());
                            Client holderClient = Client.builder()
                                    .endpoints("http://" + proxy.address())
                                    .build();
                            EtcdLockRegistry holder = EtcdLockRegistry.builder(holderClient)
                                    .options(OPTIONS)
                                    .address("http://" + proxy.address())
                                    .requestTimeout(Duration.ofSeconds(1))
                                    .build();
                            LockRegistry waiter = etcd.newRegistry(OPTIONS)) {
                        LockHandle held = holder.obtain(key).acquire();
                        Future<LockHandle> next = threads.submit(() -> waiter.obtain(key)
                                .tryAcquire(Duration.ofSeconds(20))
                                .orElseThrow());
                        Thread.sleep(LEASE.multipliedBy(2).toMillis());
                        assertThat(held.isValid())
                                .as("renewed through the proxy")
                                .isTrue();
                        assertThat(next.isDone()).isFalse();

                        Timed timed;
                        try (StderrCapture log = new StderrCapture()) {
                            long start = System.nanoTime();
                            proxy.close();
                            LockHandle taken = next.get(30, TimeUnit.SECONDS);
                            timed = Timed.since(start, LEASE.multipliedBy(3).plus(SLACK));
                            assertThat(held.isValid())
                                    .as("the cut-off holder knows its lease is gone by the time etcd gives the key"
                                            + " away")
                                    .isFalse();
                            assertThat(taken.token().isNewerThan(held.token())).isTrue();
                            taken.close();
                            awaitLogLine(log, "Lock '" + key + "'", "lost its lease");
                        }
                        held.close(); // clears the local hold; must not throw
                        assertThat(holder.obtain(key).holdCount()).isZero();
                        return timed;
                    }
                });
    }

    @Test
    void holderWhoseLeaseIsRevokedTurnsInvalidInsteadOfRenewingADeadLease() throws Exception {
        String key = "revoked";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient();
                LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry other = etcd.newRegistry(OPTIONS)) {
            LockHandle held = holder.obtain(key).acquire();
            KeyValue entry = QueueEntries.of(admin, key).get(0);
            admin.getLeaseClient().revoke(entry.getLease()).get(5, TimeUnit.SECONDS);

            Thread.sleep(LEASE.plus(SLACK).toMillis());
            assertThat(held.isValid())
                    .as("a keep-alive of a revoked lease answers TTL 0, which must not count as renewed")
                    .isFalse();
            try (LockHandle next = other.obtain(key).tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(next.token().isNewerThan(held.token())).isTrue();
                held.close();
                assertThat(next.isValid())
                        .as("the stale release left the next owner alone")
                        .isTrue();
                assertThat(QueueEntries.of(admin, key)).hasSize(1);
            }
        }
    }

    @Test
    void tokensKeepRisingAcrossAnEtcdRestartOnTheSameData() throws Exception {
        String key = "restart";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                LockRegistry registry = etcd.newRegistry(OPTIONS)) {
            FencingToken before = null;
            for (int i = 0; i < 3; i++) {
                try (LockHandle handle = registry.obtain(key).acquire()) {
                    before = handle.token();
                }
            }
            etcd.member(0).kill();
            etcd.member(0).restart();
            etcd.awaitReady(Duration.ofSeconds(30));

            try (LockHandle after =
                    registry.obtain(key).tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                assertThat(after.token().isNewerThan(before))
                        .as("token %s after restart, %s before", after.token(), before)
                        .isTrue();
            }
            try (LockRegistry fresh = etcd.newRegistry(OPTIONS);
                    LockHandle after =
                            fresh.obtain(key).tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                assertThat(after.token().isNewerThan(before)).isTrue();
            }
        }
    }

    @Test
    void waiterGetsABackendExceptionWithinItsWaitTimeWhenEtcdDies() throws Exception {
        String key = "dies";
        Duration wait = Duration.ofSeconds(3);
        TimingBound.of("EtcdFaultIT.waiterGetsABackendExceptionWithinItsWaitTimeWhenEtcdDies", NO_MARGIN)
                .check(() -> {
                    try (EtcdCluster etcd = EtcdCluster.start(1, fresh());
                            LockRegistry holder = etcd.newRegistry(OPTIONS, Duration.ofSeconds(1));
                            LockRegistry waiter = etcd.newRegistry(OPTIONS, Duration.ofSeconds(1))) {
                        holder.obtain(key).acquire();
                        long[] startedAt = new long[1];
                        Future<Optional<LockHandle>> waiting = threads.submit(() -> {
                            startedAt[0] = System.nanoTime();
                            return waiter.obtain(key).tryAcquire(wait);
                        });
                        Thread.sleep(500);
                        etcd.member(0).kill();

                        assertThatThrownBy(
                                        () -> waiting.get(wait.plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS))
                                .isInstanceOf(ExecutionException.class)
                                .cause()
                                .isInstanceOf(LockBackendException.class)
                                .hasMessageContaining("etcd")
                                .hasMessageContaining(etcd.endpoints())
                                .hasMessageContaining(key);
                        return Timed.since(startedAt[0], wait.plus(SLACK));
                    }
                });
    }

    /** The bound is one request's second, not the 5 s request timeout, plus the slack: the margin of the check. */
    @Test
    void zeroWaitTryLockFailsFastWhenEtcdIsDown() throws Exception {
        TimingBound.of("EtcdFaultIT.zeroWaitTryLockFailsFastWhenEtcdIsDown", SLACK)
                .check(() -> {
                    try (EtcdCluster etcd = EtcdCluster.start(1, fresh());
                            LockRegistry registry = etcd.newRegistry(OPTIONS)) {
                        etcd.member(0).kill();
                        long start = System.nanoTime();
                        Throwable thrown =
                                catchThrowable(() -> registry.obtain("down").tryAcquire(Duration.ZERO));
                        Timed timed = Timed.since(start, Duration.ofMillis(1000).plus(SLACK));
                        assertThat(thrown)
                                .isInstanceOf(LockBackendException.class)
                                .hasMessageContaining("'down'")
                                .hasMessageContaining("Check that etcd is running");
                        return timed;
                    }
                });
    }

    @Test
    void waiterThatTimesOutLeavesOnlyTheHoldersEntry() throws Exception {
        String key = "timeout";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient();
                LockRegistry holder = etcd.newRegistry(OPTIONS);
                LockRegistry waiter = etcd.newRegistry(OPTIONS)) {
            try (LockHandle held = holder.obtain(key).acquire()) {
                assertThat(waiter.obtain(key).tryAcquire(Duration.ofMillis(300)))
                        .isEmpty();
                assertThat(waiter.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                List<KeyValue> entries = QueueEntries.of(admin, key);
                assertThat(entries).hasSize(1);
                assertThat(entries.get(0).getCreateRevision())
                        .isEqualTo(held.token().value());
            }
            assertThat(QueueEntries.of(admin, key)).isEmpty();
        }
    }

    @Test
    void waiterWhoseQueuedLeaseEndsQueuesAgainAndGetsALiveLease() throws Exception {
        String key = "queued-lease-ends";
        // etcd reports a lease's time to live in whole seconds, rounded down: a 3s lease shows a live one as > 0.
        RegistryOptions options = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(3));
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient();
                LockRegistry holder = etcd.newRegistry(options);
                LockRegistry waiter = etcd.newRegistry(options)) {
            LockHandle held = holder.obtain(key).acquire();
            Future<LockHandle> next = threads.submit(
                    () -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(30)).orElseThrow());
            KeyValue queued = QueueEntries.await(admin, key, 2).get(1);
            admin.getLeaseClient().revoke(queued.getLease()).get(5, TimeUnit.SECONDS);
            // the waiter notices at the next keep-alive of its session lease and queues again on a new one
            List<KeyValue> requeued = QueueEntries.await(admin, key, 2);
            assertThat(requeued.get(1).getLease()).isNotEqualTo(queued.getLease());

            held.close();
            try (LockHandle taken = next.get(10, TimeUnit.SECONDS)) {
                assertThat(taken.isValid()).isTrue();
                KeyValue entry = QueueEntries.of(admin, key).get(0);
                assertThat(entry.getCreateRevision()).isEqualTo(taken.token().value());
                long ttl = admin.getLeaseClient()
                        .timeToLive(entry.getLease(), LeaseOption.DEFAULT)
                        .get(5, TimeUnit.SECONDS)
                        .getTTL();
                assertThat(ttl).as("the lease of the granted entry is alive").isPositive();
            }
        }
    }

    @Test
    void lockingGoesOnWhenTheLeaderOfAThreeMemberClusterDies() throws Exception {
        String key = "member-dies";
        // Renewals stall while the survivors elect a new leader (0.5-1s here), so the lease must outlast an election.
        Duration lease = Duration.ofSeconds(3);
        RegistryOptions options = RegistryOptions.defaults().withLeaseTime(lease);
        try (EtcdCluster etcd = EtcdCluster.start(3, dir);
                LockRegistry first = etcd.newRegistry(options);
                LockRegistry second = etcd.newRegistry(options)) {
            LockHandle held = first.obtain(key).acquire();
            int leader = etcd.leaderIndex();
            etcd.member(leader).kill();

            Thread.sleep(lease.multipliedBy(2).toMillis());
            assertThat(held.isValid())
                    .as("renewals went on through the other members")
                    .isTrue();
            assertThat(second.obtain(key).tryAcquire(Duration.ofMillis(500))).isEmpty();

            Future<LockHandle> next = threads.submit(
                    () -> second.obtain(key).tryAcquire(Duration.ofSeconds(20)).orElseThrow());
            Thread.sleep(200);
            held.close();
            FencingToken last;
            try (LockHandle taken = next.get(10, TimeUnit.SECONDS)) {
                assertThat(taken.token().isNewerThan(held.token())).isTrue();
                last = taken.token();
            }
            for (int i = 0; i < 10; i++) {
                LockRegistry owner = i % 2 == 0 ? first : second;
                try (LockHandle handle =
                        owner.obtain(key).tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                    assertThat(handle.token().isNewerThan(last)).isTrue();
                    last = handle.token();
                }
            }
        }
    }

    /** A directory of its own for each measurement's etcd. */
    private Path fresh() throws Exception {
        return Files.createDirectories(dir.resolve("run-" + System.nanoTime()));
    }

    /** Waits a little for a log line with all of {@code parts}: the WARN follows the failed renewal, which may end after the grant. */
    private static void awaitLogLine(StderrCapture log, String... parts) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < end && !log.text().lines().anyMatch(line -> containsAll(line, parts))) {
            Thread.sleep(20);
        }
        assertThat(log.text().lines().filter(line -> containsAll(line, parts)))
                .as("a WARN naming the key")
                .isNotEmpty();
    }

    private static boolean containsAll(String line, String... parts) {
        for (String part : parts) {
            if (!line.contains(part)) {
                return false;
            }
        }
        return true;
    }
}
