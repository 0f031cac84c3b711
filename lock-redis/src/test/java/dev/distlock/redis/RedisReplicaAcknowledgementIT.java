package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Grants that count only once a replica has them: a master and a replica, the replica frozen at will. */
class RedisReplicaAcknowledgementIT {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);

    private RedisServers servers;
    private ManagedProcess master;
    private ManagedProcess replica;
    private LettuceConnectionFactory factory;
    private ExecutorService threads;

    @BeforeEach
    void startMasterAndReplica() throws Exception {
        servers = new RedisServers();
        master = servers.start();
        replica = servers.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!RedisServers.cli(master.port(), "INFO", "replication").contains("state=online")) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("the replica did not come online within 30 s");
            }
            Thread.sleep(50);
        }
        factory = servers.factory(master);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        if (replica.isAlive()) {
            replica.resume();
        }
        servers.close();
    }

    private RedisLockRegistry acknowledged() {
        return RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofSeconds(30))
                .replicaAcknowledgements(1, ACK_TIMEOUT)
                .build();
    }

    @Test
    void aGrantCountsOnceTheReplicaHasIt() throws Exception {
        try (RedisLockRegistry registry = acknowledged()) {
            try (LockHandle handle =
                    registry.obtain("acked").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
                String onReplica = RedisServers.cli(
                        replica.port(), "GET", LockKey.of("acked").name());
                assertThat(onReplica).contains(" " + handle.token().value() + " ");
            }
        }
    }

    @Test
    void aGrantTheReplicaDoesNotAcknowledgeIsReleasedAndAZeroWaitFails() throws Exception {
        try (RedisLockRegistry registry = acknowledged()) {
            registry.obtain("warm").acquire().close();
            replica.pause();
            assertThatThrownBy(() -> registry.obtain("unacked").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("0 of 1 replicas acknowledged");
            assertThat(RedisServers.cli(
                                    master.port(),
                                    "EXISTS",
                                    LockKey.of("unacked").name())
                            .trim())
                    .as("released on the master, not left held")
                    .isEqualTo("0");
        }
    }

    @Test
    void aWaitingCallGetsTheKeyOnceTheReplicaAcknowledgesAgain() throws Exception {
        try (RedisLockRegistry registry = acknowledged()) {
            registry.obtain("warm").acquire().close();
            replica.pause();
            Future<Optional<LockHandle>> waiting =
                    threads.submit(() -> registry.obtain("later").tryAcquire(Duration.ofSeconds(20)));
            Thread.sleep(1500);
            assertThat(waiting.isDone())
                    .as("no grant counts while the replica is frozen")
                    .isFalse();
            replica.resume();
            Optional<LockHandle> got = waiting.get(30, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            got.get().close();
        }
    }

    @Test
    void withoutTheOptionAGrantCountsAtOnceWhateverTheReplica() throws Exception {
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
            registry.obtain("warm").acquire().close();
            replica.pause();
            Optional<LockHandle> got = registry.obtain("unacked").tryAcquire(Duration.ZERO);
            assertThat(got).isPresent();
            got.get().close();
        }
    }
}
