package dev.distlock.spring.aspect;

import dev.distlock.core.LockRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;

/**
 * The registry each {@link LockedMethod} names, looked up on first use. The advisor is created early, and looking up
 * later keeps it from pulling the backend's beans in with it.
 */
final class LockRegistries {

    private final BeanFactory beanFactory;
    private final Map<String, LockRegistry> registries = new ConcurrentHashMap<>();

    LockRegistries(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    LockRegistry of(LockedMethod locked) {
        return registries.computeIfAbsent(locked.registry(), name -> lookUp(name, locked));
    }

    private LockRegistry lookUp(String name, LockedMethod locked) {
        if (!name.isEmpty()) {
            return beanFactory.getBean(name, LockRegistry.class);
        }
        try {
            return beanFactory.getBean(LockRegistry.class);
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    "@DistributedLock on " + LockedMethod.describe(locked.method()) + " does not say which of the "
                            + e.getNumberOfBeansFound() + " LockRegistry beans to use. Set its registry attribute"
                            + " to a bean name, or mark one registry @Primary.",
                    e);
        }
    }
}
