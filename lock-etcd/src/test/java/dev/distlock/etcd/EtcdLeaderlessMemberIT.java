package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A member cut off from the leader keeps answering clients; locking must go on through the two healthy ones. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLeaderlessMemberIT {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(LEASE);

    @TempDir
    Path dir;

    @Test
    void locksAreTakenRenewedAndReleasedWhileOneMemberHasNoLeader() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.startWithPeerLinks(3, dir);
                LockRegistry first = etcd.newRegistry(OPTIONS, Duration.ofSeconds(2));
                LockRegistry second = etcd.newRegistry(OPTIONS, Duration.ofSeconds(2))) {
            int cut = (etcd.leaderIndex() + 1) % 3;
            etcd.cutOff(cut);
            awaitNoLeader(etcd, cut);

            LockHandle renewed =
                    first.obtain("renewed").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            FencingToken last = null;
            for (int i = 0; i < 12; i++) {
                LockRegistry owner = i % 2 == 0 ? first : second;
                try (LockHandle handle = owner.obtain("shared")
                        .tryAcquire(Duration.ofSeconds(5))
                        .orElseThrow(() -> new AssertionError("not acquired although two members are healthy"))) {
                    assertThat(last == null || handle.token().isNewerThan(last)).isTrue();
                    last = handle.token();
                }
            }
            Thread.sleep(LEASE.multipliedBy(2).toMillis());
            assertThat(renewed.isValid())
                    .as("renewals reached the healthy members")
                    .isTrue();
            assertThat(second.obtain("renewed").tryAcquire(Duration.ZERO)).isEmpty();
            renewed.close();
            assertThat(second.obtain("renewed").tryAcquire(Duration.ofSeconds(5)))
                    .isPresent();
        }
    }

    /** Waits until the cut-off member says it has no leader (it still answers status requests). */
    private static void awaitNoLeader(EtcdCluster etcd, int member) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Client plain = Client.builder().endpoints(etcd.clientUrl(member)).build()) {
            while (System.nanoTime() < end) {
                long leader = plain.getMaintenanceClient()
                        .statusMember(etcd.member(member).address())
                        .get(5, TimeUnit.SECONDS)
                        .getLeader();
                if (leader == 0) {
                    return;
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("member " + member + " of " + etcd + " still has a leader");
    }
}
