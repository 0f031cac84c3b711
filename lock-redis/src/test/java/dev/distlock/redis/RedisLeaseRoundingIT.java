package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
            // A grant answered after its 2 ms local view ended is given back (contract 4): such a round has no handle.
            int handles = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (int round = 0; handles < 200 && System.nanoTime() < until; round++) {
                String key = "sub-ms-" + round;
                Optional<LockHandle> expiring = first.obtain(key).tryAcquire(Duration.ofSeconds(1), lease);
                if (expiring.isEmpty()) {
                    continue;
                }
                handles++;
                Optional<LockHandle> next = Optional.empty();
                while (next.isEmpty()) {
                    next = second.obtain(key).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
                }
                boolean bothValid = expiring.get().isValid();
                next.get().close();
                expiring.get().close();
                assertThat(bothValid)
                        .as("round %d: the first handle was still valid while the second owner held the key", round)
                        .isFalse();
            }
            assertThat(handles)
                    .as("handles of a 2.9 ms lease granted within 20 s (none: no answer came within 2 ms)")
                    .isPositive();
        }
    }
}
