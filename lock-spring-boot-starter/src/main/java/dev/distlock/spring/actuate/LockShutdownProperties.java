package dev.distlock.spring.actuate;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Graceful shutdown of locking, under {@code distributed-lock.shutdown.*}. */
@ConfigurationProperties(prefix = "distributed-lock.shutdown")
public class LockShutdownProperties {

    /**
     * Whether shutdown refuses new @DistributedLock methods and waits for running ones (at most
     * spring.lifecycle.timeout-per-shutdown-phase) before the registries release this instance's locks.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
