package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * At an application's shutdown Spring stops the Redis connection factory before the lock registry
 * closes: what fails then says so, instead of sending the operator to check a Redis that runs.
 */
class StoppedConnectionFactoryIT {

    private final RedisServers servers = new RedisServers();

    @AfterEach
    void stop() {
        servers.close();
    }

    @Test
    void aCallAfterTheApplicationStoppedItsConnectionFactorySaysSoAndNotThatRedisIsDown() throws Exception {
        LettuceConnectionFactory factory = servers.factory(servers.start());
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
            registry.obtain("stopped-factory").tryAcquire(Duration.ofSeconds(5)).ifPresent(LockHandle::close);

            factory.stop();
            Throwable failure =
                    catchThrowable(() -> registry.obtain("stopped-factory").tryAcquire(Duration.ofSeconds(1)));

            assertThat(failure)
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("stopped its Redis connection factory")
                    .hasMessageNotContaining("Check that Redis runs");
        }
    }
}
