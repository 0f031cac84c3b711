package dev.distlock.spring.actuate;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.LeaderObservation;
import dev.distlock.spring.metrics.LockObserverRegistrar;
import dev.distlock.spring.semaphore.DistributedSemaphores;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code distributedlocks} endpoint and the {@code distributedLock} health indicator, each on when its part of
 * Actuator is present.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBean(LockRegistry.class)
public final class DistributedLockActuatorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static LockStatistics distributedLockStatistics() {
        return new LockStatistics();
    }

    @Bean
    static LockObserverRegistrar distributedLockStatisticsEvents(ObjectProvider<LockStatistics> statistics) {
        return new LockObserverRegistrar(
                "lock statistics", registry -> statistics.getObject().observerFor(registry));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        DistributedLocksEndpoint distributedLocksEndpoint(
                Map<String, LockRegistry> registries,
                LockStatistics statistics,
                ObjectProvider<LeaderElection> election,
                ObjectProvider<LeaderObservation> observation,
                ObjectProvider<DistributedSemaphores> semaphores) {
            return new DistributedLocksEndpoint(
                    registries,
                    statistics,
                    new LeadershipSection(election::getIfUnique, observation::getIfUnique),
                    new SemaphoreSection(semaphores::getIfUnique));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnHealthApiCondition.class)
    @ConditionalOnProperty(prefix = "distributed-lock.health", name = "enabled", matchIfMissing = true)
    @EnableConfigurationProperties(LockHealthProperties.class)
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
        static LockHealthIndicatorFactoryBean distributedLockHealthIndicator(
                ListableBeanFactory beans, ObjectProvider<LockHealthProperties> properties) {
            return new LockHealthIndicatorFactoryBean(
                    () -> new LockHealth(
                            beans.getBeansOfType(LockRegistry.class),
                            beans.getBean(LockStatistics.class),
                            properties.getObject().getTimeout()),
                    LockHealthIndicatorFactoryBean.class.getClassLoader());
        }
    }

    /** Boot's health API is present, in Boot 4's spring-boot-health or Boot 3.5's spring-boot-actuator. */
    static final class OnHealthApiCondition extends AnyNestedCondition {

        OnHealthApiCondition() {
            super(ConfigurationPhase.PARSE_CONFIGURATION);
        }

        @ConditionalOnClass(name = LockHealthIndicatorFactoryBean.BOOT_4 + ".HealthIndicator")
        static final class Boot4 {}

        @ConditionalOnClass(name = LockHealthIndicatorFactoryBean.BOOT_3 + ".HealthIndicator")
        static final class Boot3 {}
    }
}
