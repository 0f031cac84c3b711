package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.LockStartupException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Imported after every backend configuration. When none of them (nor the application) defined a registry, start-up
 * fails with the reason and the property to set.
 */
@Configuration(proxyBeanMethods = false)
class UnresolvedBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    LockRegistry lockRegistry(ApplicationContext context) {
        LockBackendSelection selection =
                LockBackendSelection.select(context.getEnvironment(), context.getClassLoader());
        if (selection.problem() != null) {
            throw selection.failure();
        }
        throw new LockStartupException(
                "The " + selection.backend() + " lock backend is on the classpath but this version of the starter"
                        + " cannot configure it.",
                "Define a LockRegistry bean, or set " + LockBackendSelection.PROPERTY + " to another backend.");
    }
}
