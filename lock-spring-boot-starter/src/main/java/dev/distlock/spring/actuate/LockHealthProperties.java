package dev.distlock.spring.actuate;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The lock health indicator, under {@code distributed-lock.health.*}. */
@ConfigurationProperties(prefix = "distributed-lock.health")
public class LockHealthProperties {

    /** Whether to contribute the lock backends' health ("distributedLock") to Actuator's health. */
    private boolean enabled = true;

    /** How long the health check waits for the backend's answer before reporting it DOWN. */
    private Duration timeout = Duration.ofSeconds(1);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }
}
