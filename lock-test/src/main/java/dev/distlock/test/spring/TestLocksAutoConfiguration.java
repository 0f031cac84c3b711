package dev.distlock.test.spring;

import dev.distlock.core.RegistryOptions;
import dev.distlock.spring.DistributedLockAutoConfiguration;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.test.ControlledLockRegistry;
import dev.distlock.test.LockControl;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The controlled registry in place of the application's, for {@link AutoConfigureTestLocks}. It
 * comes before the starter's configuration, whose backends then find a registry and make none.
 * Lease time and key prefix come from {@code distributed-lock.*} as for a real backend. It is
 * {@code @Primary}, so it is also the one injected when the application defines a registry bean of
 * its own (that bean is still created).
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class)
public final class TestLocksAutoConfiguration {

    @Bean(destroyMethod = "close")
    @Primary
    ControlledLockRegistry lockRegistry(
            DistributedLockProperties properties, ObjectProvider<LockControlCustomizer> customizers) {
        RegistryOptions options = new RegistryOptions(
                properties.getLeaseTime(),
                properties.getKeyPrefix() == null ? "" : properties.getKeyPrefix(),
                properties.getHolderName() == null
                        ? ""
                        : properties.getHolderName().trim(),
                properties.getWriterGrace());
        ControlledLockRegistry registry =
                ControlledLockRegistry.builder().options(options).build();
        customizers.orderedStream().forEach(customizer -> customizer.customize(registry.control()));
        return registry;
    }

    @Bean
    LockControl lockControl(ControlledLockRegistry lockRegistry) {
        return lockRegistry.control();
    }
}
