package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockBackendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import dev.distlock.redis.RedlockLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The Redis configuration against real redis-server processes started on free ports. */
class RedisBackendConfigurationIT {

    private static final List<ManagedProcess> servers = new ArrayList<>();
    private static RedisServers redis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withPropertyValues("distributed-lock.backend=redis");

    @BeforeAll
    static void startRedis() {
        redis = new RedisServers();
        for (int i = 0; i < 3; i++) {
            servers.add(redis.start());
        }
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static String startupFailure(AssertableApplicationContext context) {
        return StartupFailures.analysis(context);
    }

    private static void acquiresAToken(LockRegistry registry) throws InterruptedException {
        try (LockHandle handle =
                registry.obtain("order:1").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(handle.token().value()).isPositive();
        }
    }

    @Test
    void singleModeReusesTheApplicationsConnectionFactory() {
        runner.withBean(
                        RedisConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                                "127.0.0.1", servers.get(0).port())))
                .run(context -> {
                    assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class);
                    acquiresAToken(context.getBean(LockRegistry.class));
                });
    }

    @Test
    void replicaAcknowledgementsMakeAGrantWaitForReplicas() {
        runner.withBean(
                        RedisConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                                "127.0.0.1", servers.get(0).port())))
                .withPropertyValues(
                        "distributed-lock.redis.replica-acknowledgements=1",
                        "distributed-lock.redis.replica-acknowledgement-timeout=100ms")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    // This server has no replica: no grant can count.
                    assertThatThrownBy(() -> registry.obtain("acked").tryAcquire(Duration.ZERO))
                            .isInstanceOf(LockBackendException.class)
                            .hasMessageContaining("0 of 1 replicas acknowledged");
                });
    }

    @Test
    void negativeReplicaAcknowledgementsNameTheProperty() {
        runner.withBean(
                        RedisConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                                "127.0.0.1", servers.get(0).port())))
                .withPropertyValues("distributed-lock.redis.replica-acknowledgements=-1")
                .run(context -> assertThat(startupFailure(context)).contains("replica-acknowledgements"));
    }

    @Test
    void singleModeWithoutConnectionFactorySaysWhatToAdd() {
        runner.run(context -> assertThat(startupFailure(context))
                .contains("needs one RedisConnectionFactory bean")
                .contains("spring-boot-starter-data-redis")
                .contains("spring.data.redis"));
    }

    @Test
    void redlockModeOpensTheListedNodes() {
        runner.withPropertyValues(
                        "distributed-lock.redis.mode=redlock",
                        "distributed-lock.redis.redlock-nodes="
                                + String.join(
                                        ",",
                                        servers.stream()
                                                .map(s -> "redis://127.0.0.1:" + s.port())
                                                .toList()))
                .run(context -> {
                    assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedlockLockRegistry.class);
                    acquiresAToken(context.getBean(LockRegistry.class));
                });
    }

    @Test
    void redlockWithFewerThanThreeNodesNamesTheProperty() {
        runner.withPropertyValues(
                        "distributed-lock.redis.mode=redlock",
                        "distributed-lock.redis.redlock-nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")
                .run(context -> assertThat(startupFailure(context))
                        .contains("at least 3 independent Redis nodes")
                        .contains("distributed-lock.redis.redlock-nodes"));
    }
}
