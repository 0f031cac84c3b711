package dev.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.FaultProxy;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits end on time against a silent etcd (frozen with SIGSTOP, or behind a network that drops
 * every byte), and what a waiter queued is gone soon after, not a whole lease later.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdWaitTimeIT {

    /** The contract's bound on how far past its wait time a call may return. */
    private static final Duration OVERRUN = Duration.ofMillis(250);

    /**
     * The margin of the {@link TimingBound}s: zero, as the bounds are the contract's own and add nothing for a busy
     * machine. An overrun while this JVM stalled at all is measured again, on an etcd started and frozen afresh.
     */
    private static final Duration NO_MARGIN = Duration.ZERO;

    /**
     * Long enough that a test would notice an entry that stays until its lease ends. The answer budget is 50 ms under
     * the bound these tests check: a zero wait against a frozen server returns 50-80 ms after its request's cut-off
     * (270 ms against 250 before the budget existed, on an idle machine), which the budget does not cover yet.
     */
    private static final RegistryOptions LONG_LEASE =
            RegistryOptions.defaults().withLeaseTime(Duration.ofSeconds(30)).withAnswerBudget(OVERRUN.minusMillis(50));

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
    void waiterWhoseWithdrawalGotNoAnswerLeavesTheQueueOnceTheNetworkIsBack() throws Exception {
        String key = "withdrawal-lost";
        try (EtcdCluster etcd = EtcdCluster.start(1, dir);
                Client admin = etcd.newClient();
                FaultProxy proxy = FaultProxy.to("127.0.0.1", etcd.member(0).port());
                // Requests fail instead of queueing in the client while etcd is out of reach, so jetcd's own
                // retries of the withdrawal run out and only the backend's clean-up can remove the entry.
                Client waiterClient = Client.builder()
                        .endpoints("http://" + proxy.address())
                        .waitForReady(false)
                        .build();
                EtcdLockRegistry waiter = EtcdLockRegistry.builder(waiterClient)
                        .options(LONG_LEASE)
                        .address("http://" + proxy.address())
                        .build();
                LockRegistry holder = etcd.newRegistry(LONG_LEASE);
                LockRegistry third = etcd.newRegistry(LONG_LEASE)) {
            LockHandle held = holder.obtain(key).acquire();
            Future<Optional<LockHandle>> waiting =
                    threads.submit(() -> waiter.obtain(key).tryAcquire(Duration.ofSeconds(1)));
            QueueEntries.await(admin, key, 2);

            proxy.silence();
            assertThat(endsWithoutAHold(waiting)).isTrue();
            // then etcd is out of reach for longer than the client's own retries of a request last
            proxy.refuse();
            Thread.sleep(6000);
            proxy.restore();
            held.close();

            Optional<LockHandle> next = third.obtain(key).tryAcquire(Duration.ofSeconds(10));
            assertThat(next)
                    .as("the gone waiter's entry must not hold the key up for its 30s lease")
                    .isPresent();
            next.get().close();
            assertThat(QueueEntries.await(admin, key, 0)).isEmpty();
        }
    }

    @Test
    void zeroWaitAgainstAFrozenEtcdEndsWithinTheSlack() throws Exception {
        TimingBound.of("EtcdWaitTimeIT.zeroWaitAgainstAFrozenEtcdEndsWithinTheSlack", NO_MARGIN)
                .check(() -> {
                    try (EtcdCluster etcd = EtcdCluster.start(1, fresh());
                            LockRegistry registry = etcd.newRegistry(LONG_LEASE)) {
                        registry.obtain("warm-up")
                                .tryAcquire(Duration.ofSeconds(5))
                                .orElseThrow()
                                .close();
                        freeze(etcd);
                        try {
                            long start = System.nanoTime();
                            Optional<LockHandle> got = Optional.empty();
                            LockBackendException failed = null;
                            try {
                                got = registry.obtain("frozen").tryAcquire(Duration.ZERO);
                            } catch (LockBackendException e) {
                                failed = e;
                            }
                            Timed timed = Timed.since(start, OVERRUN);
                            if (failed != null) {
                                assertThat(failed).hasMessageContaining("'frozen'");
                            }
                            assertThat(got).isEmpty();
                            return timed;
                        } finally {
                            etcd.member(0).resume();
                        }
                    }
                });
    }

    @Test
    void queuedWaiterAgainstAFrozenEtcdEndsWithinItsWaitTimeAndLeavesNothingBehind() throws Exception {
        String key = "frozen-waiter";
        Duration wait = Duration.ofSeconds(1);
        TimingBound.of(
                        "EtcdWaitTimeIT.queuedWaiterAgainstAFrozenEtcdEndsWithinItsWaitTimeAndLeavesNothingBehind",
                        NO_MARGIN)
                .check(() -> {
                    try (EtcdCluster etcd = EtcdCluster.start(1, fresh());
                            Client admin = etcd.newClient();
                            LockRegistry holder = etcd.newRegistry(LONG_LEASE);
                            LockRegistry waiter = etcd.newRegistry(LONG_LEASE)) {
                        LockHandle held = holder.obtain(key).acquire();
                        long[] took = new long[1];
                        Future<Optional<LockHandle>> waiting = threads.submit(() -> {
                            long start = System.nanoTime();
                            try {
                                return waiter.obtain(key).tryAcquire(wait);
                            } finally {
                                took[0] = System.nanoTime() - start;
                            }
                        });
                        QueueEntries.await(admin, key, 2);
                        freeze(etcd);
                        try {
                            assertThat(endsWithoutAHold(waiting)).isTrue();
                        } finally {
                            etcd.member(0).resume();
                        }
                        held.close();
                        assertThat(QueueEntries.await(admin, key, 0))
                                .as("the waiter's entry is withdrawn once etcd answers again")
                                .isEmpty();
                        return new Timed(Duration.ofNanos(took[0]), wait.plus(OVERRUN));
                    }
                });
    }

    /** A directory of its own for each measurement's etcd. */
    private Path fresh() throws IOException {
        return Files.createDirectories(dir.resolve("run-" + System.nanoTime()));
    }

    /** SIGSTOP, and waits until every thread of etcd has stopped (the signal is delivered asynchronously). */
    private static void freeze(EtcdCluster etcd) throws Exception {
        etcd.member(0).pause();
        Path tasks = Path.of("/proc", Long.toString(etcd.member(0).pid()), "task");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < end) {
            boolean allStopped;
            try (Stream<Path> threads = Files.list(tasks)) {
                allStopped = threads.allMatch(EtcdWaitTimeIT::isStopped);
            }
            if (allStopped) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("etcd did not stop after SIGSTOP");
    }

    private static boolean isStopped(Path thread) {
        try {
            String stat = Files.readString(thread.resolve("stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state == 'T' || state == 't';
        } catch (IOException e) {
            return true; // the thread is gone
        }
    }

    /** True when the wait ended with no hold: empty, or a backend error naming the key. */
    private static boolean endsWithoutAHold(Future<Optional<LockHandle>> waiting) throws Exception {
        try {
            return waiting.get(20, TimeUnit.SECONDS).isEmpty();
        } catch (ExecutionException e) {
            return e.getCause() instanceof LockBackendException;
        }
    }
}
