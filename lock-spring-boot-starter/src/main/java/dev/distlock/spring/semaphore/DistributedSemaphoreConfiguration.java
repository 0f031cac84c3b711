package dev.distlock.spring.semaphore;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.aspect.AnnotatedMethodAdvisor;
import dev.distlock.spring.aspect.LockAnnotationParser;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The {@link DistributedSemaphore} advisor, just outside the {@link DistributedLock} advisor, and the {@link
 * DistributedSemaphores} that meters and the actuator endpoint read.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class DistributedSemaphoreConfiguration {

    /** Order of the {@link DistributedSemaphore} advisor. Permits are taken before a method's lock and transaction. */
    static final int SEMAPHORE_ORDER = DistributedLockAutoConfiguration.ASPECT_ORDER - 10;

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedSemaphores distributedSemaphores(BeanFactory beanFactory) {
        return new DistributedSemaphores(beanFactory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static SemaphoreMethods distributedSemaphoreMethods(
            Environment environment, DistributedSemaphores semaphores, BeanFactory beanFactory) {
        return new SemaphoreMethods(new LockAnnotationParser(environment, beanFactory), semaphores);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotatedMethodAdvisor distributedSemaphoreAdvisor(
            SemaphoreMethods methods, DistributedSemaphores semaphores) {
        return new AnnotatedMethodAdvisor(
                SemaphoreMethods::isAnnotated,
                new DistributedSemaphoreInterceptor(methods, semaphores),
                SEMAPHORE_ORDER);
    }
}
