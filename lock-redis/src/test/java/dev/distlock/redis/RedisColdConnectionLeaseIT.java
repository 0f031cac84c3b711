package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.RegistryOptions;
import dev.distlock.core.spi.Deadline;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OwnerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A lock call that meets the lock connection still being made (a registry built while Redis was out of reach, or a
 * reconnect) sends its take once it is made: the hold's lease counts from then, not from the call (contract 4).
 */
class RedisColdConnectionLeaseIT {

    /** How long making the lock connection takes: more than the lease. */
    private static final Duration SLOW_CONNECT = Duration.ofMillis(1500);

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final RedisServers servers = new RedisServers();

    @AfterEach
    void stop() {
        servers.close();
    }

    @Test
    void connectionMadeDuringTheFirstCallIsNotChargedToItsLease() throws Exception {
        LettuceConnectionFactory slow = slowToConnect(servers.start().port());
        try {
            long called = System.nanoTime();
            try (RedisLockBackend backend = new RedisLockBackend(
                    new RedisEndpoint(slow, false),
                    new ReleaseSubscriber(slow),
                    new CallLimits(LEASE.multipliedBy(10), RegistryOptions.DEFAULT_ANSWER_BUDGET))) {
                RedisLease lease = backend.tryAcquire(new LockRequest(
                                "cold-connection",
                                new OwnerId("cold", 1, 1),
                                LEASE,
                                Deadline.after(Duration.ofSeconds(10))))
                        .orElseThrow();
                long returned = System.nanoTime();

                assertThat(Duration.ofNanos(lease.grantRequestedAtNanos() - called))
                        .as("the lease counts from the take, sent once the connection was made")
                        .isGreaterThanOrEqualTo(SLOW_CONNECT);
                assertThat(lease.grantRequestedAtNanos() - returned)
                        .as("and from before the take's answer arrived")
                        .isNegative();
            }
        } finally {
            slow.destroy();
        }
    }

    @Test
    void redlockNodesConnectionsMadeDuringTheFirstCallAreNotChargedToItsLease() throws Exception {
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                factories.add(slowToConnect(servers.start().port()));
            }
            long called = System.nanoTime();
            List<RedisEndpoint> nodes = factories.stream()
                    .map(factory -> new RedisEndpoint(factory, false))
                    .toList();
            Duration nodeTimeout = SLOW_CONNECT.multipliedBy(4); // the first round waits for the connections
            try (RedlockBackend backend = new RedlockBackend(nodes, nodeTimeout, nodeTimeout)) {
                RedisLease lease = backend.tryAcquire(new LockRequest(
                                "cold-redlock",
                                new OwnerId("cold", 1, 1),
                                LEASE,
                                Deadline.after(Duration.ofSeconds(10))))
                        .orElseThrow();

                assertThat(Duration.ofNanos(lease.grantRequestedAtNanos() - called))
                        .as(
                                "the lease counts from the first take sent to a granting node, once its connection was made")
                        .isGreaterThanOrEqualTo(SLOW_CONNECT);
            }
        } finally {
            factories.forEach(LettuceConnectionFactory::destroy);
        }
    }

    /** A factory whose every connection takes {@link #SLOW_CONNECT} to make, as a server far away or busy. */
    private static LettuceConnectionFactory slowToConnect(int port) {
        LettuceConnectionFactory factory =
                new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port)) {
                    @Override
                    public RedisConnection getConnection() {
                        try {
                            Thread.sleep(SLOW_CONNECT.toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return super.getConnection();
                    }
                };
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
