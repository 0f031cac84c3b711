package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.contract.timing.TimingBound;
import dev.distlock.contract.timing.TimingBound.Timed;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redlock over 3 nodes with one of them frozen (SIGSTOP: connected, silent, not refusing): the
 * majority decides, so the frozen node costs neither the lease nor the caller's wait time.
 */
class RedlockFrozenNodeIT {

    /** Lease at most 3× the command timeout: waiting for the frozen node on every renewal loses it. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(1000);

    private static final Duration LEASE = Duration.ofMillis(1500);

    /** How far past its wait time a call may return (contract 8, "Waits end on time", in docs/contract.md). */
    private static final Duration SLACK = Duration.ofMillis(250);

    /**
     * The margin of the {@link TimingBound}s: zero, as the bounds add nothing to the promise for a busy machine. An
     * overrun while this JVM stalled at all is measured again, on a node frozen afresh, at most twice.
     */
    private static final Duration MARGIN = Duration.ZERO;

    private RedisServers servers;
    private final List<ManagedProcess> nodes = new ArrayList<>();
    private final List<String> uris = new ArrayList<>();
    private RedlockLockRegistry registry;
    private RedlockLockRegistry other;

    @BeforeEach
    void startNodes() throws InterruptedException {
        servers = new RedisServers();
        for (int i = 0; i < 3; i++) {
            ManagedProcess node = servers.start();
            nodes.add(node);
            uris.add("redis://" + node.address());
        }
        registry = registry(uris);
        other = registry(uris);
        connect(registry);
        connect(other);
    }

    /**
     * Connects a registry to every node before one freezes: on a loaded machine a first connection
     * may take longer than the command timeout, which is not what these tests are about.
     */
    private static void connect(RedlockLockRegistry registry) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                registry.obtain("warm")
                        .tryAcquire(Duration.ofSeconds(5))
                        .orElseThrow()
                        .close();
                return;
            } catch (LockBackendException e) {
                if (System.nanoTime() - end > 0) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static RedlockLockRegistry registry(List<String> uris) {
        return RedlockLockRegistry.builder()
                .nodeUris(uris)
                .commandTimeout(COMMAND_TIMEOUT)
                .nodeTimeout(Duration.ofMillis(400))
                .leaseTime(LEASE)
                .build();
    }

    @AfterEach
    void stopNodes() {
        nodes.forEach(ManagedProcess::resume);
        registry.close();
        other.close();
        servers.close();
    }

    @Test
    void holdSurvivesRenewalsWhileOneNodeOfThreeIsFrozen() throws Exception {
        nodes.get(1).pause();
        LockHandle held = registry.obtain("frozen-minority")
                .tryAcquire(Duration.ofSeconds(2))
                .orElseThrow();
        long end = System.nanoTime() + LEASE.multipliedBy(4).toNanos();
        while (System.nanoTime() < end) {
            assertThat(held.isValid()).as("a live holder keeps its hold").isTrue();
            Thread.sleep(50);
        }
        assertThat(other.obtain("frozen-minority").tryAcquire(Duration.ZERO))
                .as("the renewed majority still excludes another owner")
                .isEmpty();
        held.close();
        Optional<LockHandle> next = other.obtain("frozen-minority").tryAcquire(Duration.ofSeconds(1));
        assertThat(next).as("released on the majority").isPresent();
        next.get().close();
    }

    @Test
    void callsEndWithinTheirWaitTimeWhileOneNodeIsFrozen() throws Exception {
        TimingBound.of("RedlockFrozenNodeIT.callsEndWithinTheirWaitTimeWhileOneNodeIsFrozen", MARGIN)
                .check(() -> {
                    nodes.forEach(ManagedProcess::resume);
                    String key = "frozen-wait-" + System.nanoTime();
                    try (RedlockLockRegistry caller = registry(uris);
                            RedlockLockRegistry holder = registry(uris)) {
                        connect(caller);
                        connect(holder);
                        LockHandle held = holder.obtain(key).acquire();
                        nodes.get(2).pause();
                        List<Timed> calls = new ArrayList<>();
                        for (Duration wait : List.of(Duration.ZERO, Duration.ofMillis(300), Duration.ofSeconds(1))) {
                            long start = System.nanoTime();
                            Optional<LockHandle> got = caller.obtain(key).tryAcquire(wait);
                            calls.add(Timed.since(start, wait.plus(SLACK)));
                            assertThat(got)
                                    .as("tryAcquire(%s) with a frozen node", wait)
                                    .isEmpty();
                        }
                        long start = System.nanoTime();
                        held.close(); // a release decided by the majority
                        calls.add(Timed.since(start, SLACK));
                        return calls.stream()
                                .max(Comparator.comparing(timed -> timed.took().minus(timed.bound())))
                                .orElseThrow();
                    } finally {
                        nodes.get(2).resume();
                    }
                });
    }
}
