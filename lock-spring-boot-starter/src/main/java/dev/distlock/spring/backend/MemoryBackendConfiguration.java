package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.core.memory.MemoryLockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.LockBackendType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The in-memory backend, with locks within this JVM only. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLockBackend(LockBackendType.MEMORY)
class MemoryBackendConfiguration {

    private static final Logger log = LoggerFactory.getLogger(MemoryBackendConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    MemoryLockRegistry lockRegistry(DistributedLockProperties properties) {
        if (properties.getBackend() == null) {
            log.info("No lock backend module on the classpath: using in-memory locks, which hold only within this"
                    + " JVM. Add dev.distlock:lock-jdbc, lock-redis, lock-zookeeper or lock-etcd to lock across"
                    + " instances.");
        }
        return MemoryLockRegistry.builder()
                .options(PropertyChecks.registryOptions(properties))
                .build();
    }
}
