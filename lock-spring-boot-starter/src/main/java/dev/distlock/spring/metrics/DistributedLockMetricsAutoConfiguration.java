package dev.distlock.spring.metrics;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.semaphore.DistributedSemaphores;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Lock meters when the application has a Micrometer {@link MeterRegistry}, and observations of
 * {@link DistributedLock} methods when it has an {@link ObservationRegistry}. Each is off without
 * Micrometer, or with {@code distributed-lock.metrics.enabled=false} /
 * {@code distributed-lock.observations.enabled=false}.
 */
@AutoConfiguration(
        after = DistributedLockAutoConfiguration.class,
        afterName = {
            // Boot 4.x and 3.5 names of the auto-configurations that create the two registries.
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
public final class DistributedLockMetricsAutoConfiguration {

    /** Order of the advisor that starts a locked method's wait observation, just outside the lock. */
    public static final int WAIT_OBSERVATION_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER - 1;

    /** Order of the advisor that observes the method under its lock, just inside the lock. */
    public static final int LOCKED_OBSERVATION_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER + 1;

    @Bean
    @ConditionalOnMissingBean
    static LockNames distributedLockNames(ObjectProvider<LockMetricsProperties> properties) {
        return new LockNames(
                properties.getIfAvailable(LockMetricsProperties::new).getMaxLockNames());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnProperty(prefix = "distributed-lock.metrics", name = "enabled", matchIfMissing = true)
    @EnableConfigurationProperties(LockMetricsProperties.class)
    static class MeterConfiguration {

        @Bean
        static LockObserverRegistrar distributedLockMeters(
                ObjectProvider<MeterRegistry> meters, ObjectProvider<LockNames> names) {
            return new LockObserverRegistrar(
                    "meters", registry -> new LockMeters(meters.getObject(), names.getObject(), registry.keyPrefix()));
        }

        @Bean
        static SemaphoreMeters distributedSemaphoreMeters(
                ObjectProvider<MeterRegistry> meters, ObjectProvider<DistributedSemaphores> semaphores) {
            return new SemaphoreMeters(meters, semaphores);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = "distributed-lock.observations", name = "enabled", matchIfMissing = true)
    @EnableConfigurationProperties(LockObservationProperties.class)
    static class ObservationConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static LockObservations distributedLockObservations(
                ObjectProvider<ObservationRegistry> observations,
                ObjectProvider<LockNames> names,
                ObjectProvider<LockAcquisitionObservationConvention> acquisitionConvention,
                ObjectProvider<LockedMethodObservationConvention> lockedConvention) {
            return new LockObservations(
                    observations::getObject,
                    names::getObject,
                    acquisitionConvention::getIfAvailable,
                    lockedConvention::getIfAvailable);
        }

        @Bean
        static LockObserverRegistrar distributedLockObservationEvents(ObjectProvider<LockObservations> observations) {
            return new LockObserverRegistrar("observations", registry -> observations.getObject());
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DefaultPointcutAdvisor distributedLockWaitObservationAdvisor(LockObservations observations) {
            return lockedMethodAdvisor(observations.waitInterceptor(), WAIT_OBSERVATION_ORDER);
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DefaultPointcutAdvisor distributedLockMethodObservationAdvisor(LockObservations observations) {
            return lockedMethodAdvisor(observations.lockedInterceptor(), LOCKED_OBSERVATION_ORDER);
        }
    }

    /** An advisor for every {@link DistributedLock} method (on the class or an interface it implements). */
    public static DefaultPointcutAdvisor lockedMethodAdvisor(MethodInterceptor interceptor, int order) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, DistributedLock.class, true), interceptor);
        advisor.setOrder(order);
        return advisor;
    }
}
