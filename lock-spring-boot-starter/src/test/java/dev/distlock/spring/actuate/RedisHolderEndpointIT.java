package dev.distlock.spring.actuate;

import dev.distlock.contract.servers.ManagedProcess;
import dev.distlock.core.LockRegistry;
import dev.distlock.core.RegistryOptions;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

class RedisHolderEndpointIT extends HolderEndpointContract {

    private static RedisServers redis;
    private static ManagedProcess server;
    private static LettuceConnectionFactory otherConnections;

    @BeforeAll
    static void startRedis() {
        redis = new RedisServers();
        server = redis.start();
        otherConnections = redis.factory(server);
    }

    @AfterAll
    static void stopRedis() {
        otherConnections.destroy();
        redis.close();
    }

    @Override
    ApplicationContextRunner application(ApplicationContextRunner runner) {
        return runner.withPropertyValues("distributed-lock.backend=redis")
                .withBean(RedisConnectionFactory.class, () -> redis.factory(server));
    }

    @Override
    LockRegistry otherInstance() {
        return RedisLockRegistry.builder(otherConnections)
                .options(RegistryOptions.defaults().withApplicationName(OTHER_APPLICATION))
                .build();
    }
}
