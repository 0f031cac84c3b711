package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHolder;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.testing.ServerStateKeys;
import dev.distlock.core.testing.ServerStateKeys.SemaphoreChurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the server holds for a lock, seen from outside the holder: who holds a key, evicting a
 * holder, checking the servers, and what stays on them after many distinct keys and semaphore
 * names. Run on one server, a Cluster and Redlock by the subclasses.
 */
abstract class RedisServerSideContract {

    /** A lease far longer than any test: only a release (or an eviction) frees the key in time. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(60);

    protected LockRegistry holderRegistry;
    protected LockRegistry operatorRegistry;
    private ExecutorService threads;

    /** A new registry with {@code lease} over the servers of the subclass. */
    protected abstract LockRegistry registry(Duration lease);

    /** Keys on all servers together. */
    protected abstract List<ManagedProcess> servers();

    /** How the servers are set up, for reports: "Redis (single)" and the like. */
    protected abstract String setup();

    private long keysOnServers() throws Exception {
        return keysOn(servers());
    }

    /** Bytes the servers' data takes together ({@code INFO memory}'s used_memory). */
    private long memoryOnServers() throws Exception {
        long bytes = 0;
        for (ManagedProcess server : servers()) {
            java.util.regex.Matcher used = java.util.regex.Pattern.compile("used_memory:(\\d+)")
                    .matcher(RedisServers.cli(server.port(), "INFO", "memory"));
            assertThat(used.find())
                    .as("INFO memory of the server on port %d", server.port())
                    .isTrue();
            bytes += Long.parseLong(used.group(1));
        }
        return bytes;
    }

    /** How many distinct keys {@link #manyDistinctKeysLeaveNothingBehind} locks. */
    protected abstract int distinctKeys();

    /** How many distinct semaphore names {@link #manyDistinctSemaphoresLeaveNothingBehind} churns. */
    protected abstract int distinctSemaphores();

    @BeforeEach
    void openRegistries() {
        holderRegistry = registry(LONG_LEASE);
        operatorRegistry = registry(LONG_LEASE);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void closeRegistries() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        holderRegistry.close();
        operatorRegistry.close();
    }

    @Test
    void anotherRegistryReadsWhoHoldsTheKey() throws Exception {
        assertThat(operatorRegistry.holderOf("who")).as("nobody yet").isEmpty();
        Future<FencingToken> held = threads.submit(() -> {
            Thread.currentThread().setName("payment-worker-7");
            LockHandle handle = holderRegistry.obtain("who").acquire();
            return handle.token();
        });
        FencingToken token = held.get(10, TimeUnit.SECONDS);
        LockHolder holder = operatorRegistry.holderOf("who").orElseThrow();
        assertThat(holder.holder()).contains("pid " + ProcessHandle.current().pid(), "thread payment-worker-7");
        assertThat(holder.token()).isEqualTo(token);
        assertThat(holder.leaseLeft())
                .hasValueSatisfying(
                        left -> assertThat(left).isPositive().isLessThanOrEqualTo(LONG_LEASE.plusSeconds(1)));
        assertThat(operatorRegistry.forceRelease("who")).isTrue();
        assertThat(operatorRegistry.holderOf("who"))
                .as("nobody after the eviction")
                .isEmpty();
    }

    @Test
    void forceReleaseEvictsTheHolderWakesTheWaiterAndTheNextTokenIsLarger() throws Exception {
        FencedResource resource = new FencedResource();
        LockHandle stuck = holderRegistry.obtain("evict").acquire();
        assertThat(resource.write(stuck.token())).isTrue();
        LockRegistry waiterRegistry = registry(LONG_LEASE);
        try {
            Future<Optional<LockHandle>> waiting =
                    threads.submit(() -> waiterRegistry.obtain("evict").tryAcquire(Duration.ofSeconds(20)));
            Thread.sleep(200);
            assertThat(waiting.isDone())
                    .as("waits while the stuck holder holds")
                    .isFalse();
            assertThat(operatorRegistry.forceRelease("evict")).isTrue();
            LockHandle next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.token().isNewerThan(stuck.token())).isTrue();
            assertThat(resource.write(next.token())).isTrue();
            assertThat(resource.write(stuck.token()))
                    .as("the evicted holder's late write is refused by its token")
                    .isFalse();
            stuck.close(); // must not free the next holder's lock
            assertThat(operatorRegistry.holderOf("evict").orElseThrow().token()).isEqualTo(next.token());
            next.close();
        } finally {
            waiterRegistry.close();
        }
        assertThat(operatorRegistry.forceRelease("evict"))
                .as("nothing left to evict")
                .isFalse();
    }

    @Test
    void verifyPassesOnReachableServers() {
        operatorRegistry.verify(Duration.ofSeconds(2));
    }

    @Test
    void manyDistinctKeysLeaveNothingBehind() throws Exception {
        long before = keysOnServers();
        long memoryBefore = memoryOnServers();
        long start = System.nanoTime();
        int threadCount = 8;
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            int first = t;
            workers.add(threads.submit(() -> {
                for (int i = first; i < distinctKeys(); i += threadCount) {
                    holderRegistry.obtain("order:" + i).acquire().close();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(10, TimeUnit.MINUTES);
        }
        // The documented horizon: a fence-only hash stays until the server clock has passed the
        // fence, a millisecond here (one host, one clock).
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Thread.sleep(50);
        long after = keysOnServers();
        ServerStateKeys.report(
                setup(),
                distinctKeys(),
                took,
                before + " keys, " + ServerStateKeys.bytes(memoryBefore) + " used",
                after + " keys, " + ServerStateKeys.bytes(memoryOnServers()) + " used");
        assertThat(after - before)
                .as("keys left after locking %d distinct keys", distinctKeys())
                .isLessThanOrEqualTo(2);
        try (LockHandle handle = holderRegistry.obtain("order:0").acquire()) {
            assertThat(handle.isValid()).isTrue();
        }
    }

    @Test
    void manyDistinctSemaphoresLeaveNothingBehind() throws Exception {
        long before = keysOnServers();
        long memoryBefore = memoryOnServers();
        List<LockRegistry> registries = List.of(holderRegistry, operatorRegistry);
        SemaphoreChurn churn = ServerStateKeys.churnSemaphores(registries, 8, distinctSemaphores(), "export:");
        // The same horizon as for the locks: each of a name's three keys is a lock key.
        Thread.sleep(50);
        long after = keysOnServers();
        ServerStateKeys.reportSemaphores(
                setup(),
                churn,
                before + " keys, " + ServerStateKeys.bytes(memoryBefore) + " used",
                after + " keys, " + ServerStateKeys.bytes(memoryOnServers()) + " used");
        assertThat(after - before)
                .as(
                        "keys left after %d distinct semaphores of %d permits were acquired and released",
                        churn.names(), ServerStateKeys.PERMITS)
                .isLessThanOrEqualTo(2);
        ServerStateKeys.assertSemaphoreStillWorks(registries, "export:0");
    }

    /** Keys on all of {@code servers} together. */
    static long keysOn(List<ManagedProcess> servers) throws Exception {
        long keys = 0;
        for (ManagedProcess server : servers) {
            keys += Long.parseLong(RedisServers.cli(server.port(), "DBSIZE").trim());
        }
        return keys;
    }

    /** A resource that refuses writes whose token is lower than the last one it accepted. */
    static final class FencedResource {

        private final AtomicLong highest = new AtomicLong();

        boolean write(FencingToken token) {
            long seen = highest.get();
            while (token.value() >= seen) {
                if (highest.compareAndSet(seen, token.value())) {
                    return true;
                }
                seen = highest.get();
            }
            return false;
        }
    }
}
