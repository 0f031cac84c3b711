package dev.distlock.spring.metrics;

import dev.distlock.core.LockObserver;
import dev.distlock.core.LockRegistry;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Adds an observer to every {@link LockRegistry} bean as it is created, the application's own
 * included. A registry that takes no observers is reported once at INFO and otherwise left alone.
 */
public final class LockObserverRegistrar implements BeanPostProcessor {

    private static final Logger log = LoggerFactory.getLogger(LockObserverRegistrar.class);

    private final String purpose;
    private final Function<LockRegistry, LockObserver> observers;

    /**
     * @param purpose what the observer is for, for the log (e.g. "meters")
     * @param observers the observer of a registry, called once per registry bean
     */
    public LockObserverRegistrar(String purpose, Function<LockRegistry, LockObserver> observers) {
        this.purpose = purpose;
        this.observers = observers;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof LockRegistry registry) {
            try {
                registry.addObserver(observers.apply(registry));
            } catch (UnsupportedOperationException e) {
                log.info(
                        "Lock registry '{}' ({}) has no {}: {}", beanName, registry.backend(), purpose, e.getMessage());
            }
        }
        return bean;
    }
}
