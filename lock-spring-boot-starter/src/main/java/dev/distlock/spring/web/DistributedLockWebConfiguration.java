package dev.distlock.spring.web;

import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.metrics.LockObserverRegistrar;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Problem details in Spring MVC and WebFlux applications for lock contention ({@code 423 Locked}), an unavailable
 * backend ({@code 503}) and a lock key that could not be computed ({@code 500}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnWebApplication
@ConditionalOnProperty(
        prefix = DistributedLockProperties.PREFIX + ".web",
        name = "problem-details",
        havingValue = "true",
        matchIfMissing = true)
public class DistributedLockWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockNotAcquiredProblemHandler distributedLockProblemHandler() {
        return new LockNotAcquiredProblemHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BackendOutages distributedLockBackendOutages() {
        return new BackendOutages();
    }

    /** Tells the outage log when calls are answered again. */
    @Bean
    static LockObserverRegistrar distributedLockOutageObserver(BackendOutages outages) {
        return new LockObserverRegistrar("outage log", registry -> outages);
    }

    @Bean
    @ConditionalOnMissingBean
    LockBackendProblemHandler distributedLockBackendProblemHandler(BackendOutages outages) {
        return new LockBackendProblemHandler(outages);
    }
}
