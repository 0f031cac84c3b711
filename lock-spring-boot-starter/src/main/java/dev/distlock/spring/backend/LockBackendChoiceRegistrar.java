package dev.distlock.spring.backend;

import dev.distlock.spring.LockBackendType;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Records the chosen backend as a constant bean definition, so that Spring AOT code carries the build-time choice for
 * {@link LockBackendChoice} to check.
 */
final class LockBackendChoiceRegistrar
        implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanClassLoaderAware {

    private Environment environment;
    private ClassLoader classLoader;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        LockBackendType chosen =
                LockBackendSelection.select(environment, classLoader).backend();
        if (chosen == null) {
            return; // start-up fails with the reason, or the application has its own registry
        }
        RootBeanDefinition definition = new RootBeanDefinition(LockBackendChoice.class);
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, chosen);
        registry.registerBeanDefinition("distributedLockBackendChoice", definition);
    }
}
