package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.FencedReadWriteLock;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd read/write locks as the server sees them: a waiting writer is woken by the watch on the
 * last reader's entry (not by a lease end), also in its grace (not at the grace's end), a reader
 * whose session lease ended (revoked, or its process gone) stops blocking writers, and released
 * keys leave no entry and no lease behind.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EtcdReadWriteServerIT {

    /** Far longer than any wait here: a waiter that got in only at a lease end would show it. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(60);

    private static EtcdCluster etcd;
    private static Client admin;

    private final List<LockRegistry> registries = new ArrayList<>();
    private ExecutorService threads;

    @BeforeAll
    static void startEtcd(@TempDir Path dir) {
        etcd = EtcdCluster.start(1, dir);
        admin = etcd.newClient();
    }

    @AfterAll
    static void stopEtcd() {
        if (admin != null) {
            admin.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @BeforeEach
    void startThreads() {
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        for (LockRegistry registry : registries) {
            registry.close();
        }
    }

    private LockRegistry registry(Duration leaseTime) {
        return registry(RegistryOptions.defaults().withLeaseTime(leaseTime));
    }

    private LockRegistry registry(RegistryOptions options) {
        LockRegistry registry = etcd.newRegistry(options);
        registries.add(registry);
        return registry;
    }

    @Test
    void waitingWriterIsWokenWhenTheLastReaderReleasesNotAtALeaseEnd() throws Exception {
        LockRegistry readers = registry(LONG_LEASE);
        LockRegistry writers = registry(LONG_LEASE);
        for (int round = 0; round < 3; round++) {
            String key = "rw-wake-" + round;
            LockHandle first = readers.readWriteLock(key).readLock().acquire();
            LockHandle second = threads.submit(
                            () -> readers.readWriteLock(key).readLock().acquire())
                    .get(10, TimeUnit.SECONDS);
            Future<Long> writer = threads.submit(() -> acquiredAt(writers.readWriteLock(key)));
            awaitEntries(key, 3);
            first.close();
            Thread.sleep(300);
            assertThat(writer.isDone()).as("one reader still holds the key").isFalse();
            long releasedAt = System.nanoTime();
            threads.submit(second::close).get(10, TimeUnit.SECONDS);
            Duration waited = Duration.ofNanos(writer.get(30, TimeUnit.SECONDS) - releasedAt);
            assertThat(waited)
                    .as("the writer got in long before any lease or session lease could end")
                    .isLessThan(LONG_LEASE.dividedBy(4));
        }
    }

    @Test
    void writerInItsGraceIsWokenWhenTheLastReaderLeavesNotAtTheGracesEnd() throws Exception {
        Duration grace = Duration.ofSeconds(30);
        LockRegistry readers = registry(LONG_LEASE);
        LockRegistry writers =
                registry(RegistryOptions.defaults().withLeaseTime(LONG_LEASE).withWriterGrace(grace));
        String key = "rw-grace-wake";
        LockHandle reader = readers.readWriteLock(key).readLock().acquire();
        Future<Long> writer = threads.submit(() -> {
            try (LockHandle handle = writers.readWriteLock(key)
                    .writeLock()
                    .tryAcquire(LONG_LEASE)
                    .orElseThrow()) {
                return System.nanoTime();
            }
        });
        Thread.sleep(200);
        assertThat(writer.isDone()).as("the reader holds the key").isFalse();
        assertThat(entries(key)).as("the writer in its grace has put no entry").hasSize(1);
        long releasedAt = System.nanoTime();
        reader.close();
        Duration waited = Duration.ofNanos(writer.get(45, TimeUnit.SECONDS) - releasedAt);
        assertThat(waited)
                .as("the writer got in when the reader left, not at its grace's end")
                .isLessThan(grace.dividedBy(20));
    }

    @Test
    void readerWhoseSessionLeaseWasRevokedDoesNotBlockWriters() throws Exception {
        LockRegistry readers = registry(LONG_LEASE);
        LockRegistry writers = registry(LONG_LEASE);
        String key = "rw-revoked";
        LockHandle reader = readers.readWriteLock(key).readLock().acquire();
        Future<Long> writer = threads.submit(() -> acquiredAt(writers.readWriteLock(key)));
        List<KeyValue> entries = awaitEntries(key, 2);
        Thread.sleep(300);
        assertThat(writer.isDone()).as("the reader blocks the writer").isFalse();
        long revokedAt = System.nanoTime();
        admin.getLeaseClient().revoke(entries.get(0).getLease()).get(10, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(writer.get(30, TimeUnit.SECONDS) - revokedAt);
        assertThat(waited)
                .as("the writer got in when the reader's session lease was revoked, not at its lease end")
                .isLessThan(LONG_LEASE.dividedBy(4));
        awaitInvalid(reader);
    }

    @Test
    void readerWhoseProcessIsGoneDoesNotBlockWritersPastItsSessionLease() throws Exception {
        // The reader's registry never releases or revokes: its client is closed under it, as when its JVM died.
        Client crashingClient = etcd.newClient();
        EtcdLockRegistry crashed = EtcdLockRegistry.builder(crashingClient)
                .leaseTime(Duration.ofSeconds(2))
                .build();
        LockRegistry writers = registry(LONG_LEASE);
        String key = "rw-crashed";
        LockHandle reader = crashed.readWriteLock(key).readLock().acquire();
        Future<Optional<LockHandle>> writer =
                threads.submit(() -> writers.readWriteLock(key).writeLock().tryAcquire(Duration.ofSeconds(30)));
        awaitEntries(key, 2);
        crashingClient.close();
        Optional<LockHandle> granted = writer.get(40, TimeUnit.SECONDS);
        assertThat(granted)
                .as("the writer got in once the dead reader's session lease ran out")
                .isPresent();
        assertThat(reader.isValid()).isFalse();
        granted.get().close();
        crashed.close();
    }

    @Test
    void distinctKeysReadAndWriteLockedLeaveNoEntryAndNoLeaseBehind() throws Exception {
        List<Long> leasesBefore = leases();
        LockRegistry registry = registry(Duration.ofSeconds(10));
        LockRegistry other = registry(Duration.ofSeconds(10));
        LockRegistry contender = registry(Duration.ofSeconds(10));
        // Each key is written, downgraded, read from two registries and every tenth contended:
        // 300 of them cover every kind of entry many times over.
        int keys = 300;
        int threadCount = 6;
        List<Future<Void>> done = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            int first = t;
            done.add(threads.submit(() -> {
                for (int i = first; i < keys; i += threadCount) {
                    lockEveryWay(registry, other, i % 10 == 0 ? contender : null, "rw-order-" + i);
                }
                return null;
            }));
        }
        for (Future<Void> future : done) {
            future.get(4, TimeUnit.MINUTES);
        }
        try (LockHandle held = registry.readWriteLock("rw-order-1").writeLock().acquire()) {
            assertThat(keysUnder(EtcdKeys.DEFAULT_NAMESPACE))
                    .as("the counting sees a held entry")
                    .isEqualTo(1);
        }
        assertThat(keysUnder(EtcdKeys.DEFAULT_NAMESPACE))
                .as("entries left under the namespace while the registries are open")
                .isZero();
        assertThat(leases()).as("the three registries' session leases").hasSize(leasesBefore.size() + 3);
        for (LockRegistry open : registries) {
            open.close();
        }
        registries.clear();
        assertThat(keysUnder(EtcdKeys.DEFAULT_NAMESPACE)).isZero();
        assertThat(leases())
                .as("closing the registries revokes their session leases")
                .hasSize(leasesBefore.size());
    }

    /**
     * A write with a downgrade inside, then reads of two registries; with a {@code contender}, a
     * writer of that registry that gives up behind the readers (its entry withdrawn).
     */
    private static void lockEveryWay(LockRegistry registry, LockRegistry other, LockRegistry contender, String key)
            throws InterruptedException {
        FencedReadWriteLock lock = registry.readWriteLock(key);
        try (LockHandle write =
                        lock.writeLock().tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                LockHandle downgraded =
                        lock.readLock().tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(downgraded.token()).isEqualTo(write.token());
        }
        try (LockHandle read =
                        lock.readLock().tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                LockHandle otherRead = other.readWriteLock(key)
                        .readLock()
                        .tryAcquire(Duration.ofSeconds(10))
                        .orElseThrow()) {
            if (contender != null) {
                assertThat(contender.readWriteLock(key).writeLock().tryAcquire(Duration.ofMillis(500)))
                        .isEmpty();
            }
            assertThat(read.isValid() && otherRead.isValid()).isTrue();
        }
    }

    private static long acquiredAt(FencedReadWriteLock lock) throws InterruptedException {
        try (LockHandle handle =
                lock.writeLock().tryAcquire(Duration.ofSeconds(30)).orElseThrow()) {
            return System.nanoTime();
        }
    }

    /** Waits up to 10 s for {@code count} entries in {@code key}'s read/write queue; returns them oldest first. */
    private static List<KeyValue> awaitEntries(String key, int count) throws Exception {
        return QueueEntries.awaitReadWrite(admin, key, count);
    }

    private static List<KeyValue> entries(String key) throws Exception {
        return QueueEntries.ofReadWrite(admin, key);
    }

    private static void awaitInvalid(LockHandle handle) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handle.isValid() && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertThat(handle.isValid())
                .as("the hold on the revoked session lease is lost")
                .isFalse();
    }

    private static long keysUnder(String prefix) throws Exception {
        return admin.getKVClient()
                .get(
                        ByteSequence.from(prefix, StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(10, TimeUnit.SECONDS)
                .getCount();
    }

    /** The lease ids etcd has, by its LeaseLeases call (through etcd's JSON gateway; jetcd has no such call). */
    private static List<Long> leases() throws Exception {
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
