package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.core.testing.ServerStateKeys;
import dev.distlock.core.testing.ServerStateKeys.SemaphoreChurn;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What stays in etcd after locks and semaphores were released: nothing but one session lease per
 * open registry.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class EtcdServerStateIT {

    private static final int KEYS = ServerStateKeys.count(25_000);
    private static final int SEMAPHORES = ServerStateKeys.semaphores(2_000);
    private static final int THREADS = 32;
    /**
     * Fewer than for the locks: a semaphore acquisition's first takes are zero waits, which fail
     * when one answer takes longer than the contract's slack, as it may with many writers at once.
     */
    private static final int SEMAPHORE_THREADS = 8;

    @TempDir
    Path dir;

    @Test
    void distinctKeysLockedOnceLeaveNoKeyAndNoLeaseBehind() throws Exception {
        RegistryOptions options = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(10));
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient()) {
            List<Long> leasesBefore = leases(etcd);
            long keysBefore = keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE);
            long bytesBefore = bytesInUse(etcd);
            long start = System.nanoTime();
            FencingToken last;
            try (LockRegistry registry = etcd.newRegistry(options)) {
                ExecutorService threads = Executors.newFixedThreadPool(THREADS);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < THREADS; t++) {
                        int first = t;
                        done.add(threads.submit(() -> {
                            for (int i = first; i < KEYS; i += THREADS) {
                                try (LockHandle handle = registry.obtain("order-" + i)
                                        .tryAcquire(Duration.ofSeconds(10))
                                        .orElseThrow()) {
                                    assertThat(handle.isValid()).isTrue();
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> future : done) {
                        future.get();
                    }
                } finally {
                    threads.shutdownNow();
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                long bytesBeforeCompaction = bytesInUse(etcd);
                compact(admin);
                ServerStateKeys.report(
                        "etcd (1 member)",
                        KEYS,
                        took,
                        keysBefore + " keys, " + leasesBefore.size() + " leases, " + ServerStateKeys.bytes(bytesBefore)
                                + " in use",
                        keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE) + " keys, "
                                + leases(etcd).size() + " leases (the registry's session), "
                                + ServerStateKeys.bytes(bytesBeforeCompaction) + " in use before compaction, "
                                + ServerStateKeys.bytes(bytesInUse(etcd)) + " after");
                assertThat(keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE))
                        .as("entries left under the namespace while the registry is open")
                        .isZero();
                assertThat(leases(etcd))
                        .as("leases while the registry is open: its one session lease")
                        .hasSize(leasesBefore.size() + 1);
                try (LockHandle again = registry.obtain("order-7").acquire()) {
                    last = again.token();
                }
            }
            assertThat(keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE)).isZero();
            assertThat(leases(etcd))
                    .as("closing the registry revokes its session lease")
                    .hasSize(leasesBefore.size());
            try (LockRegistry fresh = etcd.newRegistry(options);
                    LockHandle after = fresh.obtain("order-7").acquire()) {
                assertThat(after.token().isNewerThan(last))
                        .as("tokens keep rising after the key's entry is gone")
                        .isTrue();
            }
        }
    }

    @Test
    void distinctSemaphoresAcquiredAndReleasedOnceLeaveNoKeyAndNoLeaseBehind() throws Exception {
        RegistryOptions options = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(10));
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient()) {
            List<Long> leasesBefore = leases(etcd);
            long keysBefore = keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE);
            long bytesBefore = bytesInUse(etcd);
            try (LockRegistry one = etcd.newRegistry(options);
                    LockRegistry other = etcd.newRegistry(options)) {
                List<LockRegistry> registries = List.of(one, other);
                SemaphoreChurn churn =
                        ServerStateKeys.churnSemaphores(registries, SEMAPHORE_THREADS, SEMAPHORES, "export-");
                long bytesBeforeCompaction = bytesInUse(etcd);
                compact(admin);
                ServerStateKeys.reportSemaphores(
                        "etcd (1 member)",
                        churn,
                        keysBefore + " keys, " + leasesBefore.size() + " leases, " + ServerStateKeys.bytes(bytesBefore)
                                + " in use",
                        keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE) + " keys, "
                                + leases(etcd).size() + " leases (the registries' sessions), "
                                + ServerStateKeys.bytes(bytesBeforeCompaction) + " in use before compaction, "
                                + ServerStateKeys.bytes(bytesInUse(etcd)) + " after");
                assertThat(keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE))
                        .as("entries left under the namespace after %d semaphores, registries open", churn.names())
                        .isZero();
                assertThat(leases(etcd))
                        .as("leases while the registries are open: one session lease each")
                        .hasSize(leasesBefore.size() + registries.size());
                ServerStateKeys.assertSemaphoreStillWorks(registries, "export-0");
            }
            assertThat(keysUnder(admin, EtcdKeys.DEFAULT_NAMESPACE)).isZero();
            assertThat(leases(etcd))
                    .as("closing the registries revokes their session leases")
                    .hasSize(leasesBefore.size());
        }
    }

    /**
     * What the server keeps is its revision history until compaction (the server's
     * --auto-compaction-* settings); compacting now shows what is left beyond it. A physical
     * compaction works through the history in batches: a million semaphore names leave about eight
     * million revisions, which take minutes, so the wait grows with the revision.
     */
    private static void compact(Client admin) throws Exception {
        long revision = admin.getKVClient()
                .get(ByteSequence.from("/", java.nio.charset.StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
        admin.getKVClient()
                .compact(
                        revision,
                        io.etcd.jetcd.options.CompactOption.builder()
                                .withCompactPhysical(true)
                                .build())
                .get(Math.max(60, revision / 20_000), TimeUnit.SECONDS);
    }

    private static long keysUnder(Client admin, String prefix) throws Exception {
        return admin.getKVClient()
                .get(
                        ByteSequence.from(prefix, java.nio.charset.StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(10, TimeUnit.SECONDS)
                .getCount();
    }

    /** Bytes of the backend database in use ({@code dbSizeInUse} of the maintenance status). */
    private static long bytesInUse(EtcdCluster etcd) throws Exception {
        String body = gateway(etcd, "/v3/maintenance/status");
        Matcher size = Pattern.compile("\"dbSizeInUse\":\"?(\\d+)").matcher(body);
        assertThat(size.find()).as(body).isTrue();
        return Long.parseLong(size.group(1));
    }

    private static String gateway(EtcdCluster etcd, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(etcd.clientUrl(0) + path))
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** The lease ids etcd has, by its LeaseLeases call (through etcd's JSON gateway; jetcd has no such call). */
    private static List<Long> leases(EtcdCluster etcd) throws Exception {
        List<Long> ids = new ArrayList<>();
        Matcher id = Pattern.compile("\"ID\":\"?(-?\\d+)").matcher(gateway(etcd, "/v3/lease/leases"));
        while (id.find()) {
            ids.add(Long.parseLong(id.group(1)));
        }
        return ids;
    }
}
