package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Leases with a sub-millisecond part: the server keeps them at least as long as the handle says. */
class RedisLeaseRoundingIT {

    private static RedisServers servers;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startServer() {
        servers = new RedisServers();
        factory = servers.factory(servers.start());
    }

    @AfterAll
    static void stopServer() {
        servers.close();
    }

    @Test
    void handleIsNeverValidWhileAnotherOwnerHoldsAfterASubMillisecondLease() throws Exception {
        Duration lease = Duration.ofNanos(2_900_000);
        try (RedisLockRegistry first = RedisLockRegistry.builder(factory).build();
                RedisLockRegistry second = RedisLockRegistry.builder(factory).build()) {
            for (int round = 0; round < 200; round++) {
                String key = "sub-ms-" + round;
                LockHandle expiring =
                        first.obtain(key).tryAcquire(Duration.ZERO, lease).orElseThrow();
                Optional<LockHandle> next = Optional.empty();
                while (next.isEmpty()) {
                    next = second.obtain(key).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
                }
                boolean bothValid = expiring.isValid();
                next.get().close();
                expiring.close();
                assertThat(bothValid)
                        .as("round %d: the first handle was still valid while the second owner held the key", round)
                        .isFalse();
            }
        }
    }
}
