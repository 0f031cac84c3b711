package dev.distlock.spring;

import dev.distlock.spring.aspect.DistributedLockAspectConfiguration;
import dev.distlock.spring.backend.LockBackendConfiguration;
import dev.distlock.spring.semaphore.DistributedSemaphoreConfiguration;
import dev.distlock.spring.web.DistributedLockWebConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;

/**
 * Creates the {@link dev.distlock.core.LockRegistry} of the backend that
 * {@code distributed-lock.backend} names (or the only one on the classpath) and applies
 * {@link DistributedLock} to beans. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(
        afterName = {
            // Boot 4.x and Boot 3.5 names of the auto-configurations whose beans the backends reuse.
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
        })
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import({
    LockBackendConfiguration.class,
    DistributedLockAspectConfiguration.class,
    DistributedSemaphoreConfiguration.class,
    DistributedLockWebConfiguration.class
})
public final class DistributedLockAutoConfiguration {

    /**
     * Order of the {@link DistributedLock} advisor. It runs outside {@code @Transactional}, {@code @Cacheable} and
     * {@code @Retryable}, whose advisors default to the lowest precedence, so the lock is released only after the
     * commit. It runs inside security interceptors, so a caller who may not run the method takes no lock.
     */
    public static final int ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;
}
