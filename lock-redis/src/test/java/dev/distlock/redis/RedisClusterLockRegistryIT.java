package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.LockRegistryContract;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The contract on a 3-master Redis Cluster started for this class. */
class RedisClusterLockRegistryIT extends LockRegistryContract {

    private static RedisServers servers;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = new RedisServers();
        factory = servers.clusterFactory(servers.startCluster());
    }

    @AfterAll
    static void stopCluster() {
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    protected LockRegistry createRegistry(RegistryOptions options) {
        return RedisLockRegistry.builder(factory).options(options).build();
    }

    /** Only two keys in one hash slot can be read by one script. */
    @Override
    protected boolean guardsTakes(String key, String guardKey) {
        return slot(key) == slot(guardKey);
    }

    private static int slot(String key) {
        return SlotHash.getSlot(
                LockKey.of(RegistryOptions.defaults().keyPrefix() + key).nameBytes());
    }

    @Test
    void aTakeUnlessAGuardInTheSameSlotIsHeldChecksBoth() throws Exception {
        String key = key("slot");
        String guard = null;
        for (int i = 0; guard == null; i++) {
            String candidate = key + "-guard-" + i;
            guard = slot(candidate) == slot(key) ? candidate : null;
        }
        try (LockHandle guarding =
                registryB.obtain(guard).tryAcquireDetached(Duration.ZERO).orElseThrow()) {
            assertThat(registryA.obtain(key).tryAcquireUnlessHeld(guard, null))
                    .as("refused while the guard in the same slot is held")
                    .isEmpty();
            assertThat(guarding.isValid()).isTrue();
        }
        try (LockHandle granted =
                registryA.obtain(key).tryAcquireUnlessHeld(guard, null).orElseThrow()) {
            assertThat(registryB.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(granted.token().value()).isPositive();
        }
    }

    @Test
    void keysWithBracesKeepLockAndCounterInOneSlot() throws Exception {
        // Unescaped, "}x" would give an empty hash tag, and "a}{b" another one: the lock and its
        // counter would land in different slots and the script would fail with CROSSSLOT.
        List<LockHandle> handles = new ArrayList<>();
        try {
            for (String suffix : List.of("}x", "a}{b", "{", "{}", "%7B", "%")) {
                String key = key(suffix);
                LockHandle handle =
                        registryA.obtain(key).tryAcquire(Duration.ZERO).orElseThrow();
                assertThat(handle.token().value()).isPositive();
                assertThat(registryB.obtain(key).tryAcquire(Duration.ZERO)).isEmpty();
                handles.add(handle);
            }
        } finally {
            handles.forEach(LockHandle::close);
        }
    }

    @Test
    void waiterWakesOnReleaseMessageFromAnyMaster() throws Exception {
        // A 30s lease: only the release message can wake the waiter this fast. The keys spread
        // over the three masters, while the registry subscribes on one node.
        try (RedisLockRegistry holder = RedisLockRegistry.builder(factory)
                        .leaseTime(Duration.ofSeconds(30))
                        .build();
                RedisLockRegistry waiter = RedisLockRegistry.builder(factory)
                        .leaseTime(Duration.ofSeconds(30))
                        .build()) {
            long slowest = 0;
            for (int i = 0; i < 6; i++) {
                String key = key("handoff" + i);
                LockHandle held = holder.obtain(key).acquire();
                Future<Long> acquiredAt = inThread(() -> {
                    try (LockHandle handle = waiter.obtain(key)
                            .tryAcquire(Duration.ofSeconds(20))
                            .orElseThrow()) {
                        return System.nanoTime();
                    }
                });
                Thread.sleep(300);
                long releasedAt = System.nanoTime();
                held.close();
                slowest = Math.max(slowest, acquiredAt.get(20, TimeUnit.SECONDS) - releasedAt);
            }
            assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(250));
        }
    }
}
