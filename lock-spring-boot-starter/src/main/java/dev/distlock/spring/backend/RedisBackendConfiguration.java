package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedlockLockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import dev.distlock.spring.RedisLockProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis backend over the application's {@link RedisConnectionFactory} ({@code spring.data.redis.*}), or Redlock
 * over {@code distributed-lock.redis.redlock-nodes}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLockBackend(LockBackendType.REDIS)
class RedisBackendConfiguration {

    /** Outage tuning of the Lettuce client Spring Boot builds, off with distributed-lock.redis.tune-client=false. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.lettuce.core.ClientOptions")
    @ConditionalOnProperty(
            prefix = DistributedLockProperties.PREFIX + ".redis",
            name = "tune-client",
            havingValue = "true",
            matchIfMissing = true)
    @Import(RedisClientTuning.class)
    static class ClientTuningConfiguration {}

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    LockRegistry lockRegistry(
            DistributedLockProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactories) {
        RedisLockProperties redis = properties.getRedis();
        if (redis.getMode() == RedisLockProperties.RedisMode.REDLOCK) {
            // The builder checks the nodes (at least three URIs), and the report names the property.
            RedlockLockRegistry.Builder redlock = RedlockLockRegistry.builder()
                    .nodeUris(redis.getRedlockNodes())
                    .options(PropertyChecks.registryOptions(properties));
            return LockBackendStartup.build(LockBackendType.REDIS, () -> {
                try {
                    return redlock.build();
                } catch (IllegalArgumentException e) {
                    throw PropertyChecks.invalid(
                            "redis.redlock-nodes", redis.getRedlockNodes(), "is not usable: " + e.getMessage());
                }
            });
        }
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new LockStartupException(
                    "distributed-lock.backend=redis needs one RedisConnectionFactory bean, and there is "
                            + (connectionFactories.stream().findAny().isPresent() ? "more than one" : "none") + ".",
                    "Add spring-boot-starter-data-redis and set spring.data.redis.host/port (or url), mark one"
                            + " RedisConnectionFactory @Primary, or set distributed-lock.redis.mode=redlock with"
                            + " distributed-lock.redis.redlock-nodes.");
        }
        RedisLockRegistry.Builder builder =
                RedisLockRegistry.builder(connectionFactory).options(PropertyChecks.registryOptions(properties));
        if (redis.getReplicaAcknowledgements() != 0) {
            try {
                builder.replicaAcknowledgements(
                        redis.getReplicaAcknowledgements(), redis.getReplicaAcknowledgementTimeout());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw PropertyChecks.invalid(
                        "redis.replica-acknowledgements",
                        redis.getReplicaAcknowledgements(),
                        "is not usable: " + e.getMessage());
            }
        }
        return LockBackendStartup.build(LockBackendType.REDIS, builder::build);
    }
}
