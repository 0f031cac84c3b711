package dev.distlock.spring.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/** The {@link DistributedLock} advisor, like {@code @EnableTransactionManagement} does it for transactions. */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(DistributedLockAspectConfiguration.AutoProxyRegistrar.class)
public class DistributedLockAspectConfiguration {

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedMethods distributedLockMethods(Environment environment, BeanFactory beanFactory) {
        return new LockedMethods(environment, beanFactory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = "distributedLockAdvisor")
    static AnnotatedMethodAdvisor distributedLockAdvisor(LockedMethods methods, BeanFactory beanFactory) {
        return new AnnotatedMethodAdvisor(
                LockedMethods::isAnnotated,
                new DistributedLockInterceptor(methods, beanFactory),
                DistributedLockAutoConfiguration.ASPECT_ORDER);
    }

    /** Makes sure an auto-proxy creator exists. Boot's AOP auto-configuration may upgrade it. */
    static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
