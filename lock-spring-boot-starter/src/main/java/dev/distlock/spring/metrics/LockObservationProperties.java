package dev.distlock.spring.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Lock observations (traces), under {@code distributed-lock.observations.*}. */
@ConfigurationProperties(prefix = "distributed-lock.observations")
public class LockObservationProperties {

    /**
     * Whether to observe @DistributedLock methods (the wait for the lock, and the method under it)
     * when a Micrometer ObservationRegistry bean exists.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
