package dev.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.contract.servers.JdbcServer;
import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.leader.LeaderLog;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.core.memory.MemoryLockStore;
import dev.distlock.jdbc.JdbcLockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.event.OnFailedToAcquireMutexEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Two of Spring Integration's own leader initiators over the adapter, after the leader's lease was
 * lost to an operator's force-release: leadership must go on moving when the old leader, elected
 * again, yields or stops.
 */
class LeadershipAfterLostLeaseTest {

    private static final String ROLE = "lost-lease-leader";
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final long TIMEOUT = 15_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, LockRegistryLeaderInitiator> initiators = new LinkedHashMap<>();
    private final Map<String, AtomicInteger> failedAttempts = new ConcurrentHashMap<>();
    private final Candidates candidates = new Candidates();
    private final LeaderLog log = candidates.log;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    abstract class Scenarios {

        /** A new registry over the backend every registry of the test shares. */
        abstract LockRegistry newRegistry();

        @Test
        void leadershipMovesWhenTheOldLeaderElectedAgainYields() throws Exception {
            leaderLosesItsLeaseAndIsElectedAgain();

            awaitTrying("b");
            initiators.get("a").getContext().yield();

            assertThat(log.awaitGrants(4, TIMEOUT).candidate())
                    .as("leader after a yielded")
                    .isEqualTo("b");
        }

        @Test
        void leadershipMovesWhenTheOldLeaderElectedAgainStops() throws Exception {
            leaderLosesItsLeaseAndIsElectedAgain();

            awaitTrying("b");
            initiators.get("a").stop();

            assertThat(log.awaitGrants(4, TIMEOUT).candidate())
                    .as("leader after a stopped")
                    .isEqualTo("b");
        }

        /**
         * a leads; an operator force-releases the role and b takes it; a learns of the loss and is
         * revoked; b yields and a leads again.
         */
        private void leaderLosesItsLeaseAndIsElectedAgain() throws Exception {
            start("a");
            assertThat(log.awaitGrants(1, TIMEOUT).candidate()).isEqualTo("a");
            start("b");

            LockRegistry operator = newRegistry();
            resources.add(operator);
            // a may take the freed key again before b (its next heartbeat finds it free): evict again
            // until b leads.
            for (int evictions = 0; log.grants() < 2; evictions++) {
                assertThat(evictions).as("force-releases before b led").isLessThan(30);
                operator.forceRelease(ROLE);
                long until = System.nanoTime() + 1_000_000_000L;
                while (log.grants() < 2 && System.nanoTime() - until < 0) {
                    Thread.sleep(10);
                }
            }
            assertThat(log.awaitGrants(2, TIMEOUT).candidate()).isEqualTo("b");
            log.awaitRevoked("a", TIMEOUT);

            awaitTrying("a");
            initiators.get("b").getContext().yield();
            assertThat(log.awaitGrants(3, TIMEOUT).candidate()).isEqualTo("a");
            assertThat(log.grantedEpochs()).isSorted().doesNotHaveDuplicates();
        }

        /**
         * Waits until {@code id} fails to acquire twice more: it is then back in its loop of waiting
         * attempts (past any pause after a yield or revocation), so a release wakes it.
         */
        private void awaitTrying(String id) throws InterruptedException {
            AtomicInteger failed = failedAttempts.get(id);
            int target = failed.get() + 2;
            long end = System.nanoTime() + TIMEOUT * 1_000_000;
            while (failed.get() < target) {
                assertThat(System.nanoTime()).as(id + " trying to lead").isLessThan(end);
                Thread.sleep(10);
            }
        }

        private void start(String id) {
            LockRegistry registry = newRegistry();
            resources.add(registry);
            IntegrationLockRegistry locks = new IntegrationLockRegistry(registry);
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(locks, candidates.candidate(id, ROLE, locks));
            initiator.setHeartBeatMillis(100);
            // Long enough that a candidate that yielded or was revoked does not take the role straight
            // back before the other one, which is waiting for it.
            initiator.setBusyWaitMillis(1_000);
            AtomicInteger failed = new AtomicInteger();
            failedAttempts.put(id, failed);
            initiator.setPublishFailedEvents(true);
            initiator.setApplicationEventPublisher(event -> {
                if (event instanceof OnFailedToAcquireMutexEvent) {
                    failed.incrementAndGet();
                }
            });
            initiator.start();
            resources.add(initiator::stop);
            initiators.put(id, initiator);
        }
    }

    @Nested
    class Memory extends Scenarios {

        private final MemoryLockStore store = new MemoryLockStore();

        @Override
        LockRegistry newRegistry() {
            return MemoryLockRegistry.builder().store(store).leaseTime(LEASE).build();
        }
    }

    @Nested
    class Redis extends Scenarios {

        private final RedisServers servers = new RedisServers();
        private final ManagedProcess server = servers.start();

        Redis() {
            resources.add(servers);
        }

        @Override
        LockRegistry newRegistry() {
            return RedisLockRegistry.builder(servers.factory(server))
                    .leaseTime(LEASE)
                    .build();
        }
    }

    @Nested
    class Postgres extends Scenarios {

        private final String table = JdbcServer.uniqueName("distlock_si");
        private final HikariDataSource dataSource = connect();

        Postgres() {
            resources.add(dataSource);
            resources.add(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    connection.createStatement().execute("DROP TABLE IF EXISTS " + table);
                }
            });
            // Created once here, so the registries' first calls do not race to create it.
            try (LockRegistry first = newRegistry()) {
                first.verify(Duration.ofSeconds(10));
            }
        }

        @Override
        LockRegistry newRegistry() {
            return JdbcLockRegistry.builder(dataSource)
                    .tableName(table)
                    .initializeSchema(true)
                    .leaseTime(LEASE)
                    .build();
        }

        private static HikariDataSource connect() {
            JdbcServer postgresql = JdbcServer.POSTGRESQL;
            postgresql.require();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(postgresql.url());
            config.setUsername(postgresql.user());
            config.setPassword(postgresql.password());
            config.setMaximumPoolSize(10);
            config.setInitializationFailTimeout(-1);
            return new HikariDataSource(config);
        }
    }
}
