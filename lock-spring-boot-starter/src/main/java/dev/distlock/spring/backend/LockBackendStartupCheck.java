package dev.distlock.spring.backend;

import dev.distlock.core.LockRegistry;
import dev.distlock.spring.DistributedLockProperties;
import dev.distlock.spring.DistributedLockProperties.StartupCheckMode;
import dev.distlock.spring.LockBackendType;
import dev.distlock.spring.LockStartupException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Proves at start-up that each lock backend is reachable and usable ({@link LockRegistry#verify}). It fails start-up,
 * or logs a WARN when the application must start while the backend is down.
 */
final class LockBackendStartupCheck implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockBackendStartupCheck.class);
    private static final String MODE_PROPERTY = DistributedLockProperties.PREFIX + ".startup-check.mode";

    private final ObjectProvider<LockRegistry> registries;
    private final StartupCheckMode mode;
    private final Duration timeout;

    LockBackendStartupCheck(ObjectProvider<LockRegistry> registries, DistributedLockProperties properties) {
        this.registries = registries;
        this.mode = properties.getStartupCheck().getMode();
        this.timeout = PropertyChecks.positive(
                "startup-check.timeout", properties.getStartupCheck().getTimeout());
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (mode != StartupCheckMode.OFF) {
            registries.orderedStream().forEach(this::check);
        }
    }

    private void check(LockRegistry registry) {
        try {
            registry.verify(timeout);
        } catch (RuntimeException e) {
            if (mode == StartupCheckMode.WARN) {
                log.warn(
                        "The {} lock backend is not usable; starting anyway ({}=warn), lock calls fail until it is: {}",
                        registry.backend(),
                        MODE_PROPERTY,
                        e.getMessage());
                return;
            }
            LockBackendType type = BackendModules.fromId(registry.backend());
            String what = type != null ? BackendModules.connectionAction(type) + " " : "";
            throw new LockStartupException(
                    "The " + registry.backend() + " lock backend is not usable: " + e.getMessage(),
                    what + "To start while the backend is down, set " + MODE_PROPERTY + "=warn.",
                    e);
        }
    }
}
