package dev.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.LeaderLog;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** Spring Integration's own leader initiator, run over the adapter by three candidates. */
class LeaderInitiatorTest {

    private static final String ROLE = "cluster-leader";

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, LockRegistry> registries = new LinkedHashMap<>();
    private final Candidates candidates = new Candidates();
    private final LeaderLog log = candidates.log;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void threeCandidatesElectOneLeaderAndFailOverWhenItsRegistryCloses() throws Exception {
        MemoryLockStore store = new MemoryLockStore();
        startCandidates(() -> MemoryLockRegistry.builder()
                .store(store)
                .leaseTime(Duration.ofSeconds(2))
                .build());

        String first = log.awaitGrants(1, 10_000).candidate();
        Thread.sleep(500); // several heartbeats of every candidate
        assertThat(log.leader()).isEqualTo(first);
        assertThat(log.maxLeaders()).as("candidates leading at once").isEqualTo(1);

        registries.get(first).close();

        String second = log.awaitGrants(2, 10_000).candidate();
        assertThat(second).isNotEqualTo(first);
        log.awaitRevoked(first, 10_000);
        assertThat(log.leader()).isEqualTo(second);
        assertThat(log.grantedEpochs().get(1)).isGreaterThan(log.grantedEpochs().get(0));
    }

    @Test
    void leaderWhoseRegistryIsClosedWithoutReleasingIsRevokedBeforeAnotherIsGrantedOnRedis() throws Exception {
        RedisServers servers = new RedisServers();
        resources.add(servers);
        ManagedProcess server = servers.start();
        Map<LockRegistry, LettuceConnectionFactory> factories = new LinkedHashMap<>();
        Duration lease = Duration.ofSeconds(2);
        startCandidates(() -> {
            LettuceConnectionFactory factory = servers.factory(server);
            RedisLockRegistry registry =
                    RedisLockRegistry.builder(factory).leaseTime(lease).build();
            factories.put(registry, factory);
            return registry;
        });
        String first = log.awaitGrants(1, 10_000).candidate();

        // The connection goes first, so closing the registry cannot release: the key stays held on
        // the server until its lease runs out, as when the leader's process dies.
        LockRegistry leader = registries.get(first);
        long closedAt = System.nanoTime();
        factories.get(leader).destroy();
        leader.close();

        LeaderLog.Event next = log.awaitGrants(2, 15_000);
        assertThat(next.candidate()).isNotEqualTo(first);
        assertThat(log.maxLeaders()).as("candidates leading at once").isEqualTo(1);
        assertThat(log.sequence()).startsWith(first + "+", first + "-", next.candidate() + "+");
        assertThat(log.grantedEpochs().get(1)).isGreaterThan(log.grantedEpochs().get(0));
        System.out.printf(
                "Spring Integration failover on Redis after the leader's registry closed without releasing"
                        + " (lease %d ms): %.0f ms%n",
                lease.toMillis(), (next.atNanos() - closedAt) / 1e6);
    }

    private void startCandidates(Supplier<LockRegistry> newRegistry) {
        for (String id : List.of("a", "b", "c")) {
            LockRegistry registry = newRegistry.get();
            resources.add(registry);
            registries.put(id, registry);
            IntegrationLockRegistry locks = new IntegrationLockRegistry(registry);
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(locks, candidates.candidate(id, ROLE, locks));
            initiator.setHeartBeatMillis(100);
            initiator.setBusyWaitMillis(20);
            initiator.setApplicationEventPublisher(event -> {});
            initiator.start();
            resources.add(initiator::stop);
        }
    }
}
