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
 * The scripts are on the server before they are needed, at start and after a restart that lost
 * them, so that no lock operation pays a second round trip (EVALSHA, NOSCRIPT, EVAL).
 */
class RedisScriptLoadingIT {

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
        servers.close();
    }

    @Test
    void firstAcquireRenewalAndReleaseNeedNoFallbackOnAFreshServer() throws Exception {
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofMillis(600))
                .build()) {
            awaitScriptsLoaded();
            try (LockHandle held = registry.obtain("fresh").acquire()) {
                Thread.sleep(700); // past a renewal
                assertThat(held.isValid()).isTrue();
            }
        }
        assertNoScriptFallback();
    }

    @Test
    void scriptsAreLoadedAgainAfterTheServerRestarts() throws Exception {
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory)
                .leaseTime(Duration.ofMillis(600))
                .build()) {
            registry.obtain("before").acquire().close();
            server.restart(); // no persistence: the script cache is gone
            awaitScriptsLoaded();
            try (LockHandle held = registry.obtain("after").acquire()) {
                Thread.sleep(700);
                assertThat(held.isValid()).isTrue();
            }
        }
        assertNoScriptFallback();
    }

    /** Waits until the client (re)connected and sent SCRIPT LOAD; fails after 10 s. */
    private void awaitScriptsLoaded() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!RedisServers.cli(server.port(), "INFO", "commandstats").contains("cmdstat_script")) {
            assertThat(System.nanoTime()).as("SCRIPT LOAD within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private void assertNoScriptFallback() throws Exception {
        String stats = RedisServers.cli(server.port(), "INFO", "commandstats")
                + RedisServers.cli(server.port(), "INFO", "errorstats");
        assertThat(stats).contains("cmdstat_evalsha").doesNotContain("cmdstat_eval:", "NOSCRIPT");
    }
}
