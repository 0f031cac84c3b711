package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The registry of the backend that {@code distributed-lock.backend} names (or the only one on the classpath),
 * and the start-up check that it answers.
 */
@Configuration(proxyBeanMethods = false)
@Import({
    LockBackendChoiceRegistrar.class,
    RedisBackendConfiguration.class,
    JdbcBackendConfiguration.class,
    ZooKeeperBackendConfiguration.class,
    EtcdBackendConfiguration.class,
    MemoryBackendConfiguration.class,
    UnresolvedBackendConfiguration.class
})
public class LockBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockBackendStartupCheck distributedLockStartupCheck(
            ObjectProvider<LockRegistry> registries, DistributedLockProperties properties) {
        return new LockBackendStartupCheck(registries, properties);
    }
}
