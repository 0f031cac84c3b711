package dev.distlock.spring;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** In Spring MVC and WebFlux applications: {@code 423 Locked} problem details for lock contention. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnWebApplication
@ConditionalOnProperty(
        prefix = DistributedLockProperties.PREFIX + ".web",
        name = "problem-details",
        havingValue = "true",
        matchIfMissing = true)
class DistributedLockWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockNotAcquiredProblemHandler distributedLockProblemHandler() {
        return new LockNotAcquiredProblemHandler();
    }
}
