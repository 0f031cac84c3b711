package dev.distlock.spring.aspect;

import dev.distlock.core.LockRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;

/**
 * The registry an annotated method names, looked up on first use. The advisors are created early, and looking up
 * later keeps them from pulling the backend's beans in with them. Internal: shared by the lock and semaphore aspects.
 */
public final class LockRegistries {

    private final BeanFactory beanFactory;
    private final Map<String, LockRegistry> registries = new ConcurrentHashMap<>();

    public LockRegistries(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    LockRegistry of(LockedMethod locked) {
        return named(locked.registry(), () -> LockedMethod.LOCK + " on " + LockedMethod.describe(locked.method()));
    }

    /**
     * The registry bean called {@code name}, or the only (or primary) one when {@code name} is empty.
     *
     * @param user the annotation and method that asks, for the error when several registries fit
     */
    public LockRegistry named(String name, Supplier<String> user) {
        return registries.computeIfAbsent(name, any -> lookUp(name, user));
    }

    private LockRegistry lookUp(String name, Supplier<String> user) {
        if (!name.isEmpty()) {
            return beanFactory.getBean(name, LockRegistry.class);
        }
        try {
            return beanFactory.getBean(LockRegistry.class);
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    user.get() + " does not say which of the " + e.getNumberOfBeansFound() + " LockRegistry beans to"
                            + " use. Set its registry attribute to a bean name, or mark one registry @Primary.",
                    e);
        }
    }
}
