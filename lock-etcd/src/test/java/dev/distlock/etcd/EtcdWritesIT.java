package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What holds cost etcd: counted in Raft proposals (etcd's own {@code
 * etcd_server_proposals_committed_total}), every one a replicated, fsynced write. Lease
 * keep-alives are not proposals; grants, revokes, puts and deletes are.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdWritesIT {

    private static final int CYCLES = 50;
    private static final RegistryOptions OPTIONS = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(30));

    @TempDir
    Path dir;

    @Test
    void anUncontendedAcquireAndReleaseCostTwoWritesOnceTheSessionLeaseIsThere() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                LockRegistry registry = etcd.newRegistry(OPTIONS)) {
            registry.obtain("warm-up").acquire().close();
            long before = proposals(etcd);
            for (int i = 0; i < CYCLES; i++) {
                try (LockHandle handle = registry.obtain("cycle-" + (i % 5)).acquire()) {
                    assertThat(handle.isValid()).isTrue();
                }
            }
            long writes = proposals(etcd) - before;
            assertThat(writes)
                    .as(
                            "Raft writes for %d acquire+release cycles (a lease granted and revoked per hold makes it 3 each)",
                            CYCLES)
                    .isLessThanOrEqualTo(2L * CYCLES + 2);
        }
    }

    @Test
    void losingTheSessionLeaseLosesEveryHoldOnItAndTheNextAcquisitionGetsANewOne() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient();
                LockRegistry registry =
                        etcd.newRegistry(RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(3)));
                LockRegistry other = etcd.newRegistry(OPTIONS)) {
            List<LockHandle> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(registry.obtain("shared-" + i).acquire());
            }
            long session = leaseOf(admin, "shared-0");
            admin.getLeaseClient().revoke(session).get(5, TimeUnit.SECONDS);

            for (int i = 0; i < 3; i++) {
                LockHandle taken = other.obtain("shared-" + i)
                        .tryAcquire(Duration.ofSeconds(5))
                        .orElseThrow();
                assertThat(taken.token().isNewerThan(held.get(i).token())).isTrue();
                awaitInvalid(held.get(i));
                held.get(i).close();
                taken.close();
            }
            try (LockHandle again = registry.obtain("shared-0")
                    .tryAcquire(Duration.ofSeconds(5))
                    .orElseThrow()) {
                long ttl = admin.getLeaseClient()
                        .timeToLive(leaseOf(admin, "shared-0"), LeaseOption.DEFAULT)
                        .get(5, TimeUnit.SECONDS)
                        .getTTL();
                assertThat(ttl).as("a new session lease, alive").isPositive();
                assertThat(leaseOf(admin, "shared-0")).isNotEqualTo(session);
            }
        }
    }

    private static long leaseOf(Client admin, String key) throws Exception {
        return QueueEntries.of(admin, key).get(0).getLease();
    }

    /** The session's keep-alive notices the revoke within a fraction of the lease time. */
    private static void awaitInvalid(LockHandle handle) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handle.isValid() && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertThat(handle.isValid())
                .as("%s after its session lease was revoked", handle)
                .isFalse();
    }

    private static long proposals(EtcdCluster etcd) throws Exception {
        String metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(etcd.clientUrl(0) + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return metrics.lines()
                .filter(line -> line.startsWith("etcd_server_proposals_committed_total "))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("etcd's /metrics has no etcd_server_proposals_committed_total"));
    }
}
