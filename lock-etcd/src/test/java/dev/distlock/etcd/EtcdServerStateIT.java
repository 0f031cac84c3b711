package dev.distlock.etcd;

import dev.distlock.core.testing.ServerStateKeys;
import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
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

/** What stays in etcd after locks were released: nothing but one session lease per open registry. */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class EtcdServerStateIT {

    private static final int KEYS = ServerStateKeys.count(100_000);
    private static final int THREADS = 8;

    @TempDir
    Path dir;

    @Test
    void hundredThousandDistinctKeysLockedOnceLeaveNoKeyAndNoLeaseBehind() throws Exception {
        RegistryOptions options = RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(10));
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient()) {
            List<Long> leasesBefore = leases(etcd);
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

    private static long keysUnder(Client admin, String prefix) throws Exception {
        return admin.getKVClient()
                .get(
                        ByteSequence.from(prefix, java.nio.charset.StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(10, TimeUnit.SECONDS)
                .getCount();
    }

    /** The lease ids etcd has, by its LeaseLeases call (through etcd's JSON gateway; jetcd has no such call). */
    private static List<Long> leases(EtcdCluster etcd) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(etcd.clientUrl(0) + "/v3/lease/leases"))
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<Long> ids = new ArrayList<>();
        Matcher id = Pattern.compile("\"ID\":\"?(-?\\d+)").matcher(response.body());
        while (id.find()) {
            ids.add(Long.parseLong(id.group(1)));
        }
        return ids;
    }
}
