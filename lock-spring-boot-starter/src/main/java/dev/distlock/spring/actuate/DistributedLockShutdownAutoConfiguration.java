package dev.distlock.spring.actuate;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.metrics.DistributedLockMetricsAutoConfiguration;
import java.time.Duration;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Graceful shutdown of locking (see {@link LockShutdown}). {@code distributed-lock.shutdown.enabled=false} turns it
 * off.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnProperty(prefix = "distributed-lock.shutdown", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockShutdownProperties.class)
public final class DistributedLockShutdownAutoConfiguration {

    /** Order of the gate, outside the lock advisor and the wait observation. */
    public static final int GATE_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER - 2;

    /**
     * Order of the gate for {@link DistributedSemaphore} methods. It runs outside the semaphore advisor ({@code
     * ASPECT_ORDER - 10}), which takes permits before any lock.
     */
    public static final int SEMAPHORE_GATE_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER - 12;

    /** Spring's default for {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedMethodGate distributedLockGate() {
        return new LockedMethodGate();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DefaultPointcutAdvisor distributedLockGateAdvisor(LockedMethodGate gate) {
        return DistributedLockMetricsAutoConfiguration.lockedMethodAdvisor(gate, GATE_ORDER);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DefaultPointcutAdvisor distributedSemaphoreGateAdvisor(LockedMethodGate gate) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, DistributedSemaphore.class, true), gate);
        advisor.setOrder(SEMAPHORE_GATE_ORDER);
        return advisor;
    }

    @Bean
    LockShutdown distributedLockShutdown(LockedMethodGate gate, Environment environment) {
        Duration timeout = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_PHASE_TIMEOUT);
        return new LockShutdown(gate, timeout);
    }
}
