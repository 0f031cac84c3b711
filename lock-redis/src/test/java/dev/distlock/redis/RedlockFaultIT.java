package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.FencingToken;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Redlock over 5 nodes while some of them are down or restarted without their data. */
class RedlockFaultIT {

    private RedisServers servers;
    private final List<ManagedProcess> nodes = new ArrayList<>();
    private RedlockLockRegistry registry;
    private RedlockLockRegistry other;

    @BeforeEach
    void startNodes() {
        servers = new RedisServers();
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ManagedProcess node = servers.start();
            nodes.add(node);
            uris.add("redis://" + node.address());
        }
        registry = RedlockLockRegistry.builder()
                .nodeUris(uris)
                .leaseTime(Duration.ofSeconds(10))
                .build();
        other = RedlockLockRegistry.builder()
                .nodeUris(uris)
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    @AfterEach
    void stopNodes() {
        registry.close();
        other.close();
        servers.close();
    }

    @Test
    void locksWithTwoOfFiveNodesDown() throws Exception {
        FencingToken before;
        try (LockHandle handle = registry.obtain("minority-down").acquire()) {
            before = handle.token();
        }
        nodes.get(0).kill();
        nodes.get(3).kill();
        try (LockHandle handle = registry.obtain("minority-down")
                .tryAcquire(Duration.ofSeconds(5))
                .orElseThrow()) {
            assertThat(handle.token().isNewerThan(before)).isTrue();
            assertThat(other.obtain("minority-down").tryAcquire(Duration.ofMillis(300)))
                    .as("three live nodes still exclude another owner")
                    .isEmpty();
        }
        LockHandle next =
                other.obtain("minority-down").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        next.close();
    }

    @Test
    void ridesOutThreeOfFiveNodesDownAndFailsWhenTheWaitEndsNamingTheLastError() {
        nodes.get(0).kill();
        nodes.get(2).kill();
        nodes.get(4).kill();
        Duration wait = Duration.ofSeconds(2);
        long start = System.nanoTime();
        assertThatThrownBy(() -> registry.obtain("majority-down").tryAcquire(wait))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("last error")
                .hasMessageContaining("3 of 5 Redlock nodes did not answer")
                .hasMessageContaining(nodes.get(2).address());
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("the call tried until its wait ended")
                .isGreaterThanOrEqualTo(wait);
        assertThat(registry.obtain("majority-down").holdCount()).isZero();
    }

    @Test
    void aWaitOutlastsAMajorityOutageAndThenGetsTheLock() throws Exception {
        nodes.get(0).kill();
        nodes.get(2).kill();
        nodes.get(4).kill();
        Thread restarter = new Thread(() -> {
            try {
                Thread.sleep(1_000);
                nodes.get(0).restart();
                nodes.get(2).restart();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        restarter.start();
        try {
            Optional<LockHandle> handle = registry.obtain("majority-back").tryAcquire(Duration.ofSeconds(30));
            assertThat(handle).as("granted once three nodes answer again").isPresent();
            handle.get().close();
        } finally {
            restarter.join(30_000);
        }
    }

    @Test
    void tokensRiseWhenNodesRestartWithoutTheirCounters() throws Exception {
        FencingToken last = null;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 10; i++) {
                try (LockHandle handle = registry.obtain("restarts").acquire()) {
                    if (last != null) {
                        assertThat(handle.token().isNewerThan(last)).isTrue();
                    }
                    last = handle.token();
                }
            }
            // Two different nodes lose everything each round; a majority still remembers.
            nodes.get(round).restart();
            nodes.get(round + 1).restart();
        }
    }

    @Test
    void tokenIsWrittenBackToTheMajority() throws Exception {
        try (LockHandle handle = registry.obtain("written-back").acquire()) {
            long token = handle.token().value();
            int holding = 0;
            for (ManagedProcess node : nodes) {
                // '<owner> <token> <flags><holder>' (lock-value.lua)
                String[] stored = RedisServers.cli(node.port(), "GET", "distlock:{written-back}")
                        .trim()
                        .split(" ");
                if (stored.length > 2 && Long.parseLong(stored[1]) >= token) {
                    holding++;
                }
            }
            assertThat(holding).isGreaterThanOrEqualTo(3);
        }
    }
}
