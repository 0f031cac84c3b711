package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockHandle;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A hold lost while its server is frozen (SIGSTOP: the connection stays up, nothing answers): its
 * release, and closing the registry, return while the server still answers nothing. A release that
 * waited for the server would wait for the test servers' connection timeout (10 s) at least, and so
 * still be waiting when these tests look, after 5 s.
 */
class RedisLostHoldReleaseIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(1);
    private static final long LOOK_AFTER_MILLIS = 5_000;

    private RedisServers servers;
    private ManagedProcess server;
    private LettuceConnectionFactory factory;

    @BeforeEach
    void startServer() {
        servers = new RedisServers();
        server = servers.start();
        factory = servers.factory(server);
    }

    @AfterEach
    void stopServer() {
        server.resume();
        servers.close();
    }

    @Test
    void releasingAHoldLostWhileTheServerIsFrozenReturnsAtOnce() throws Exception {
        RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .commandTimeout(COMMAND_TIMEOUT)
                .build();
        try {
            LockHandle held = registry.obtain("frozen-release")
                    .tryAcquire(Duration.ZERO, Duration.ofMillis(300))
                    .orElseThrow();
            server.pause();
            awaitInvalid(held);
            Thread releasing = new Thread(held::close);
            releasing.start();
            releasing.join(LOOK_AFTER_MILLIS);
            assertThat(releasing.isAlive())
                    .as("the release of a lost hold waits for a frozen server")
                    .isFalse();
        } finally {
            server.resume();
            registry.close();
        }
    }

    @Test
    void closingARegistryWithAHoldLostWhileTheServerIsFrozenReturnsAtOnce() throws Exception {
        RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .commandTimeout(COMMAND_TIMEOUT)
                .build();
        LockHandle held = registry.obtain("frozen-close")
                .tryAcquire(Duration.ZERO, Duration.ofMillis(300))
                .orElseThrow();
        server.pause();
        awaitInvalid(held);
        Thread closing = new Thread(registry::close);
        closing.start();
        closing.join(LOOK_AFTER_MILLIS);
        assertThat(closing.isAlive())
                .as("close() waits for a frozen server to answer the release of a lost hold")
                .isFalse();
    }

    private static void awaitInvalid(LockHandle handle) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (handle.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(handle.isValid()).isFalse();
    }
}
